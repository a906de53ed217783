// POST /api/workflows/runs/{runId}/merge on a path workspace, against real git in temp dirs: the
// merge lands in the user's own repository, and a refusal (dirty checkout, conflict, no
// fast-forward, a run still running) leaves every byte of it, its refs and its status as they were.
import { execFileSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupAll, eventTypes, getRun, startRun, startServer, tempDir, waitForRun, waitForStatus, writeWorkflows, type Json } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { git, makeRepository, treeDigest } from '../helpers/git.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});

afterAll(cleanupAll);

/** A user's repository on `main` (workflows committed), registered by path, and a finished run that added feature.txt and changed README.md's last line. */
let made = 0;
async function finishedRun(): Promise<{ dir: string; run: Json }> {
  // Workflow names are one namespace over every registered workspace: each repository gets its own.
  const name = `feature-${(made += 1)}`;
  const dir = await tempDir('svc-land-');
  makeRepository(dir, { 'README.md': '# demo\nline two\n', 'keep.txt': 'kept\n' });
  await writeWorkflows(dir, [
    { name, nodes: [{ id: 'edit', bash: "printf 'feature\\n' > feature.txt && printf '# demo\\nline two, by the run\\n' > README.md" }] },
  ]);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'workflows');
  const workspace = (await api(server, 'POST', '/api/workspaces', { path: dir })).body;
  const run = await waitForRun(server, await startRun(server, name, { message: 'Add the feature\n\nmore words', workspaceId: workspace.id }));
  expect(run.status).toBe('completed');
  return { dir, run };
}

const merge = (runId: string, body?: Json) => api(server, 'POST', `/api/workflows/runs/${runId}/merge`, body);

/** Everything a refused merge must leave as it was: files, status, refs, worktrees and the entries of .git. */
function snapshot(dir: string) {
  return {
    files: treeDigest(dir, { skipGit: true }),
    status: git(dir, 'status', '--porcelain=v1', '--branch'),
    refs: git(dir, 'for-each-ref'),
    worktrees: git(dir, 'worktree', 'list', '--porcelain'),
    dotGit: readdirSync(join(dir, '.git')).sort(),
  };
}

const parents = (dir: string, commit: string) => git(dir, 'rev-list', '--parents', '-n', '1', commit).split(' ').slice(1);

describe('merge into a path workspace', () => {
  it("merges into the checked-out main and updates the user's checkout, untracked files kept", async () => {
    const { dir, run } = await finishedRun();
    writeFileSync(join(dir, 'notes.txt'), 'my own notes\n');
    const before = git(dir, 'rev-parse', 'main');
    const answer = await merge(run.id);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toEqual({ merged: true, into: 'main', commit: expect.stringMatching(/^[0-9a-f]{40}$/), strategy: 'merge', alreadyLanded: false });
    const { commit } = answer.body;
    expect(git(dir, 'rev-parse', 'main')).toBe(commit);
    expect(parents(dir, commit)).toEqual([before, run.headCommit]);
    expect(git(dir, 'log', '-1', '--format=%B', commit)).toContain(`Merge svc/${run.id} into main\n\nAdd the feature\n\nSvc-Run: ${run.id}`);
    // The checkout follows: the run's files are there, nothing is left to commit, the user's notes are untouched.
    expect(readFileSync(join(dir, 'feature.txt'), 'utf8')).toBe('feature\n');
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toBe('# demo\nline two, by the run\n');
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('my own notes\n');
    expect(git(dir, 'status', '--porcelain')).toBe('?? notes.txt');
    const after = await getRun(server, run.id);
    expect(after.status).toBe('completed');
    expect(after.merged).toEqual({ into: 'main', commit, strategy: 'merge', at: expect.any(String) });
    expect(after.events.find((e: Json) => e.type === 'run_merged')).toMatchObject({ into: 'main', commit, strategy: 'merge' });
    // A second merge has nothing to bring: already landed (issue 32), and svc's own record of the merge stays.
    const again = await merge(run.id);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ merged: true, into: 'main', commit, strategy: 'merge', alreadyLanded: true });
    expect((await getRun(server, run.id)).merged).toEqual(after.merged);
  });

  it('refuses a dirty checkout, naming its changed files, and touches nothing', async () => {
    const { dir, run } = await finishedRun();
    writeFileSync(join(dir, 'keep.txt'), 'changed by the user, not committed\n');
    writeFileSync(join(dir, 'README.md'), '# staged by the user\n');
    git(dir, 'add', 'README.md');
    const before = snapshot(dir);
    const answer = await merge(run.id);
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe('dirty_checkout');
    expect(answer.body.details.files.sort()).toEqual(['README.md', 'keep.txt']);
    expect(answer.body.message).toContain('keep.txt');
    expect(snapshot(dir)).toEqual(before);
    expect(readFileSync(join(dir, 'keep.txt'), 'utf8')).toBe('changed by the user, not committed\n');
    expect(git(dir, 'diff', '--cached', '--name-only')).toBe('README.md');
    expect((await getRun(server, run.id)).merged).toBeUndefined();
  });

  it('refuses a conflict with its files: status, refs, worktrees and .git exactly as before, no MERGE_HEAD', async () => {
    const { dir, run } = await finishedRun();
    writeFileSync(join(dir, 'README.md'), '# demo\nline two, by the user\n');
    git(dir, 'commit', '-q', '-am', 'my own edit');
    const before = snapshot(dir);
    const branchBefore = git(dir, 'rev-parse', `svc/${run.id}`);
    const answer = await merge(run.id);
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({ error: 'merge_conflict', details: { files: ['README.md'] } });
    expect(snapshot(dir)).toEqual(before);
    expect(before.dotGit).not.toContain('MERGE_HEAD');
    expect(git(dir, 'rev-parse', `svc/${run.id}`)).toBe(branchBefore);
    expect(eventTypes(await getRun(server, run.id))).not.toContain('run_merged');
  });

  it('squash: one commit on top of main with the merged tree', async () => {
    const { dir, run } = await finishedRun();
    const before = git(dir, 'rev-parse', 'main');
    const answer = await merge(run.id, { strategy: 'squash', message: 'The feature, squashed' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const { commit } = answer.body;
    expect(parents(dir, commit)).toEqual([before]);
    expect(git(dir, 'rev-parse', `${commit}^{tree}`)).toBe(git(dir, 'rev-parse', `${run.headCommit}^{tree}`));
    expect(git(dir, 'log', '-1', '--format=%B', commit)).toBe(`The feature, squashed\n\nSvc-Run: ${run.id}`);
    expect(git(dir, 'rev-parse', 'main')).toBe(commit);
    expect(readFileSync(join(dir, 'feature.txt'), 'utf8')).toBe('feature\n');
  });

  it('fast-forward moves main to the run head; when main moved on it answers not_fast_forward and changes nothing', async () => {
    const first = await finishedRun();
    const ff = await merge(first.run.id, { strategy: 'fast-forward' });
    expect(ff.status, JSON.stringify(ff.body)).toBe(200);
    expect(ff.body.commit).toBe(first.run.headCommit);
    expect(git(first.dir, 'rev-parse', 'main')).toBe(first.run.headCommit);
    expect(readFileSync(join(first.dir, 'feature.txt'), 'utf8')).toBe('feature\n');

    const second = await finishedRun();
    writeFileSync(join(second.dir, 'other.txt'), 'other\n');
    git(second.dir, 'add', 'other.txt');
    git(second.dir, 'commit', '-q', '-m', 'moved on');
    const before = snapshot(second.dir);
    const refused = await merge(second.run.id, { strategy: 'fast-forward' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('not_fast_forward');
    expect(snapshot(second.dir)).toEqual(before);
  });

  it('into a branch not checked out: the branch moves, the working tree (dirty, on another branch) stays byte for byte', async () => {
    const { dir, run } = await finishedRun();
    git(dir, 'checkout', '-q', '-b', 'elsewhere');
    writeFileSync(join(dir, 'keep.txt'), 'work in progress\n');
    const files = treeDigest(dir, { skipGit: true });
    const status = git(dir, 'status', '--porcelain=v1', '--branch');
    const answer = await merge(run.id, { into: 'main' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(git(dir, 'rev-parse', 'main')).toBe(answer.body.commit);
    expect(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('elsewhere');
    expect(treeDigest(dir, { skipGit: true })).toBe(files);
    expect(git(dir, 'status', '--porcelain=v1', '--branch')).toBe(status);
    expect(git(dir, 'reflog', '-1', '--format=%gs', 'main')).toContain(`svc: merge svc/${run.id}`);
  });

  it.each([
    ['checked out nowhere', true],
    ['checked out in the user’s directory', false],
  ])('two merges at once into a branch %s: one after the other, both land, nothing stray is left', async (_where, elsewhere) => {
    const dir = await tempDir('svc-land-race-');
    makeRepository(dir);
    const workflow = elsewhere ? 'race' : 'race-here';
    await writeWorkflows(dir, [{ name: workflow, nodes: [{ id: 'add', bash: 'printf "%s\\n" "$ARGUMENTS" > "$ARGUMENTS.txt"' }] }]);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'workflows');
    if (elsewhere) git(dir, 'checkout', '-q', '-b', 'elsewhere');
    const workspace = (await api(server, 'POST', '/api/workspaces', { path: dir })).body;
    const runs = await Promise.all(
      ['one', 'two'].map(async (message) => waitForRun(server, await startRun(server, workflow, { message, workspaceId: workspace.id }))),
    );
    const answers = await Promise.all(runs.map((run) => merge(run.id, { into: 'main' })));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const main = git(dir, 'rev-parse', 'main');
    for (const answer of answers) expect(git(dir, 'merge-base', '--is-ancestor', answer.body.commit, main)).toBe('');
    expect(git(dir, 'show', 'main:one.txt')).toBe('one');
    expect(git(dir, 'show', 'main:two.txt')).toBe('two');
    // Run side by side in one checkout, the loser of the ref's compare-and-set left its files staged there.
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('answers 404 for an unknown branch and 400 for a bad strategy or an option-like branch', async () => {
    const { run } = await finishedRun();
    expect((await merge(run.id, { into: 'nope' })).body.error).toBe('branch_not_found');
    expect((await merge(run.id, { strategy: 'rebase' })).status).toBe(400);
    expect((await merge(run.id, { into: '--force' })).status).toBe(400);
  });

  it('a git older than 2.38 (no merge-tree --write-tree) answers merge_failed saying so, nothing changed', async () => {
    const { dir, run } = await finishedRun();
    // A git that answers merge-tree as git 2.37 does (exit 129, usage), and is the real git otherwise.
    const bin = await tempDir('svc-old-git-');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(
      join(bin, 'git'),
      `#!/bin/sh\nfor a; do [ "$a" = merge-tree ] && { echo 'usage: git merge-tree <base-tree> <branch1> <branch2>' >&2; exit 129; }; done\nexec ${realGit} "$@"\n`,
    );
    chmodSync(join(bin, 'git'), 0o755);
    const before = snapshot(dir);
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    try {
      const answer = await merge(run.id);
      expect(answer.status).toBe(409);
      expect(answer.body).toMatchObject({ error: 'merge_failed', message: expect.stringContaining('git 2.38 or later') });
    } finally {
      process.env.PATH = path;
    }
    expect(snapshot(dir)).toEqual(before);
  });

  it('refuses a run that had no worktree with no_worktree', async () => {
    const dir = await tempDir('svc-land-plain-');
    await writeWorkflows(dir, [{ name: 'plain-land', nodes: [{ id: 'a', bash: 'true' }] }]);
    const run = await waitForRun(server, await startRun(server, 'plain-land', { message: '', cwd: dir }));
    for (const op of ['merge', 'push', 'pr']) {
      const answer = await api(server, 'POST', `/api/workflows/runs/${run.id}/${op}`);
      expect(answer.status).toBe(409);
      expect(answer.body.error).toBe('no_worktree');
    }
  });

  it('refuses a run still running with run_active', async () => {
    const dir = await tempDir('svc-land-active-');
    makeRepository(dir);
    await writeWorkflows(dir, [{ name: 'slow', nodes: [{ id: 'wait', bash: 'sleep 30' }] }]);
    const workspace = (await api(server, 'POST', '/api/workspaces', { path: dir })).body;
    const runId = await startRun(server, 'slow', { message: '', workspaceId: workspace.id });
    await waitForRun(server, runId, (run) => run.status === 'running');
    const refs = git(dir, 'for-each-ref');
    const answer = await merge(runId);
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({ error: 'run_active', details: { status: 'running' } });
    expect(git(dir, 'for-each-ref')).toBe(refs);
    expect((await api(server, 'POST', `/api/workflows/runs/${runId}/cancel`)).status).toBe(200);
    await waitForStatus(server, runId, 'cancelled');
  });
});
