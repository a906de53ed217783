// Taking a prepared worktree at the default branch's tip in one git transaction (pool-take.ts): the
// run's branch is made only when the branch still points at the worktree's commit and the run's
// branch does not exist yet; otherwise nothing changes — no branch made, none moved, the worktree
// still ready — and the run goes the careful way. A take that fails half-way leaves the run's place
// free and unregistered, whatever order its concurrent steps end in.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { PoolDirectory, type PoolManifest } from '../../src/workspaces/pool-directory.js';
import { readPoolNote, takeAtBranchTip } from '../../src/workspaces/pool-take.js';
import { git, makeRepository, useEmptyGitConfig } from '../helpers/git.js';
import { tempDir } from '../helpers/runs.js';

let repository: string;
let pool: PoolDirectory;
let tip: string;
const errors: Error[] = [];
const gitEnv = () => ({ env: { ...process.env } });

/** A worktree detached at `commit` in the pool, with its manifest: ready to be taken. */
function prepare(name: string, commit: string): PoolManifest {
  git(repository, 'worktree', 'add', '-q', '--detach', pool.pathOf(name), commit);
  const manifest: PoolManifest = {
    name,
    repository,
    commit,
    preparedAt: new Date().toISOString(),
    preparedBy: 'none',
    durationMs: 1,
    cacheKey: null,
    cachePaths: [],
    clean: true,
  };
  writeFileSync(join(pool.dir, `${name}.json`), JSON.stringify(manifest));
  return manifest;
}

const target = (runId: string) => ({
  workspaceId: 'ws_test',
  repository,
  path: join(repository, '..', 'worktrees', runId),
  branch: `svc/${runId}`,
  from: 'main',
});

beforeEach(async () => {
  await useEmptyGitConfig();
  const root = await tempDir('svc-pool-take-');
  repository = join(root, 'repo');
  mkdirSync(repository);
  makeRepository(repository, { 'README.md': '# one\n' });
  tip = git(repository, 'rev-parse', 'main');
  pool = new PoolDirectory(join(root, 'pool'), gitEnv());
  mkdirSync(pool.dir);
  errors.length = 0;
});

describe('taking a pool worktree at the branch tip', () => {
  it('moves it to the run’s place on the run’s branch, with its note', async () => {
    prepare('pool-0000000a', tip);
    const taken = await takeAtBranchTip(pool, await pool.ready(), target('run_a'), gitEnv(), (e) => errors.push(e));
    expect(errors).toEqual([]);
    expect(taken).toBe(tip);
    const path = target('run_a').path;
    expect(git(path, 'symbolic-ref', 'HEAD')).toBe('refs/heads/svc/run_a');
    expect(git(repository, 'rev-parse', 'svc/run_a')).toBe(tip);
    expect(git(repository, 'worktree', 'list', '--porcelain')).toContain(`worktree ${path}`);
    expect(existsSync(pool.pathOf('pool-0000000a'))).toBe(false);
    expect(await pool.ready()).toEqual([]);
    expect((await readPoolNote(path))?.commit).toBe(tip);
  });

  it('changes nothing when the branch moved since the worktree was prepared', async () => {
    prepare('pool-0000000b', tip);
    writeFileSync(join(repository, 'README.md'), '# two\n');
    git(repository, 'commit', '-qam', 'two');
    const taken = await takeAtBranchTip(pool, await pool.ready(), target('run_b'), gitEnv(), (e) => errors.push(e));
    expect(taken).toBeNull();
    expect(git(repository, 'branch', '--list', 'svc/*')).toBe('');
    expect((await pool.ready()).map((m) => m.name)).toEqual(['pool-0000000b']);
    expect(existsSync(target('run_b').path)).toBe(false);
  });

  it('leaves a run branch that exists already as it was, and the worktree ready', async () => {
    prepare('pool-0000000c', tip);
    writeFileSync(join(repository, 'kept.txt'), 'a commit on the run branch\n');
    git(repository, 'checkout', '-q', '-b', 'svc/run_c');
    git(repository, 'add', 'kept.txt');
    git(repository, 'commit', '-qm', 'kept');
    const kept = git(repository, 'rev-parse', 'svc/run_c');
    git(repository, 'checkout', '-q', 'main');
    const taken = await takeAtBranchTip(pool, await pool.ready(), target('run_c'), gitEnv(), (e) => errors.push(e));
    expect(taken).toBeNull();
    expect(git(repository, 'rev-parse', 'svc/run_c')).toBe(kept);
    expect((await pool.ready()).map((m) => m.name)).toEqual(['pool-0000000c']);
  });

  it('drops the branch it made when the worktree was taken by someone else meanwhile', async () => {
    const manifest = prepare('pool-0000000d', tip);
    const ready = await pool.ready();
    await pool.claim(manifest.name); // another taker won the rename
    const taken = await takeAtBranchTip(pool, ready, target('run_d'), gitEnv(), (e) => errors.push(e));
    expect(taken).toBeNull();
    expect(git(repository, 'branch', '--list', 'svc/*')).toBe('');
  });

  it('a take whose note cannot be written leaves no worktree at the run’s place', async () => {
    prepare('pool-0000000e', tip);
    // The order the concurrent steps may end in, made certain by git behind a wrapper: the move,
    // slower than the failed write (a busy disk), ends only once the clean-up has begun.
    const bin = join(repository, '..', 'bin');
    mkdirSync(bin);
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const cleanupStarted = join(bin, 'cleanup-started');
    const moveDone = join(bin, 'move-done');
    const wait = (file: string) => `i=0; while [ ! -e ${file} ] && [ $i -lt 200 ]; do sleep 0.01; i=$((i+1)); done`;
    writeFileSync(
      join(bin, 'git'),
      [
        '#!/bin/sh',
        'case " $* " in',
        `  *" worktree move "*) ${wait(cleanupStarted)}; ${real} "$@"; s=$?; touch ${moveDone}; exit $s;;`,
        `  *" update-ref -d "*) touch ${cleanupStarted}; ${wait(moveDone)};;`,
        'esac',
        `exec ${real} "$@"`,
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const slowGit = () => ({ env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
    // The note's write fails at once (a folder in its place here; ENOSPC or EACCES in life).
    const link = readFileSync(join(pool.pathOf('pool-0000000e'), '.git'), 'utf8')
      .replace(/^gitdir: /, '')
      .trim();
    mkdirSync(join(resolve(pool.pathOf('pool-0000000e'), link), 'svc-pool.json'));
    const path = target('run_e').path;
    const taken = await takeAtBranchTip(pool, await pool.ready(), target('run_e'), slowGit(), (e) => errors.push(e));
    expect(taken).toBeNull();
    expect(errors.length).toBe(1);
    // What the caller does next (worktrees.ts addWorktree) needs the place free and unregistered.
    expect(git(repository, 'worktree', 'list', '--porcelain')).not.toContain(`worktree ${path}`);
    expect(existsSync(path)).toBe(false);
    expect(git(repository, 'branch', '--list', 'svc/*')).toBe('');
  });
});
