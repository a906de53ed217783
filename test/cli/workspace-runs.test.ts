// The newcomer's first hour with two repositories (issue 32, items 1 and 2), through the built CLI
// as a user runs it, with no server (the routes in the CLI's process, on its store): two registered
// repositories each with their own `fix-add`, listed with their workspace; `svc run fix-add` from
// inside one runs that one's definition in a worktree and says so first; `--in-place` runs in the
// checkout and says `in place`; `--workspace` picks the other's.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { git, makeRepository } from '../helpers/git.js';
import { cleanupAll, tempDir, writeWorkflows } from '../helpers/runs.js';
import { closedPort } from '../helpers/serve-process.js';
import { makeHome } from '../helpers/server.js';

let home: string;
let env: Record<string, string>;
const repos: Record<'alpha' | 'beta', { dir: string; id: string }> = {} as never;

/** A git repository named `name` with its own `fix-add`, committed, registered with `svc workspace add`. */
async function repository(name: 'alpha' | 'beta') {
  const dir = join(await tempDir('svc-newcomer-'), name);
  await mkdir(join(dir, 'src'), { recursive: true });
  await writeFile(join(dir, 'src', 'add.js'), 'module.exports = (a, b) => a - b;\n');
  makeRepository(dir, { 'README.md': `# ${name}\n` });
  await writeWorkflows(dir, [
    { name: 'fix-add', description: `fix-add of ${name}`, nodes: [{ id: 'add', bash: `echo "${name}" > added.txt; echo "fixed by ${name}"` }] },
  ]);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'workflows');
  const added = await runCli(['workspace', 'add', dir, '--json'], { env, cwd: dir });
  expect(added.code, added.stderr).toBe(0);
  repos[name] = { dir, id: JSON.parse(added.stdout).id };
}

beforeAll(async () => {
  home = await makeHome();
  env = { SVC_HOME: home, PORT: String(await closedPort()) };
  await repository('alpha');
  await repository('beta');
}, 60_000);

afterAll(async () => {
  await cleanupAll();
  await rm(home, { recursive: true, force: true });
});

describe('two repositories with one workflow name, without a server', () => {
  it('svc workflow list shows both, each with its workspace (piped and --json), and no error', async () => {
    const piped = await runCli(['workflow', 'list'], { env, cwd: join(repos.beta.dir, 'src') });
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
    const rows = piped.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split('\t'))
      .filter((row) => row[0] === 'fix-add');
    // beta's first: the one `fix-add` means inside beta's checkout; the last column names the workspace.
    expect(rows.map((row) => [row[5], row[6]])).toEqual([
      [join(repos.beta.dir, '.svc/workflows/fix-add.yaml'), 'beta'],
      [join(repos.alpha.dir, '.svc/workflows/fix-add.yaml'), 'alpha'],
    ]);
    const json = await runCli(['workflow', 'list', '--json'], { env, cwd: repos.alpha.dir });
    const body = JSON.parse(json.stdout);
    expect(body).not.toHaveProperty('errors');
    expect(
      body.workflows
        .filter((w: { name: string }) => w.name === 'fix-add')
        .map((w: { workspaceId: string; workspaceName: string }) => [w.workspaceId, w.workspaceName]),
    ).toEqual([
      [repos.alpha.id, 'alpha'],
      [repos.beta.id, 'beta'],
    ]);
  });

  it('svc run from inside a checkout runs its own definition in a worktree, says so first, and leaves the checkout untouched', async () => {
    const ran = await runCli(['run', 'fix-add'], { env, cwd: join(repos.beta.dir, 'src'), timeoutMs: 60_000 });
    expect(ran.code, ran.stderr).toBe(0);
    const [first] = ran.stdout.split('\n');
    const runId = /run_\w+/.exec(first!)?.[0];
    const worktree = join(home, 'workspaces', repos.beta.id, 'worktrees', runId ?? '?');
    expect(first).toBe(`fix-add: on workspace beta (${repos.beta.id}), in worktree ${worktree} (branch svc/${runId}); your checkout is not touched`);
    expect(readFileSync(join(worktree, 'added.txt'), 'utf8')).toBe('beta\n');
    expect(existsSync(join(repos.beta.dir, 'added.txt'))).toBe(false);
    expect(git(repos.beta.dir, 'status', '--porcelain')).toBe('');
    const shown = JSON.parse((await runCli(['runs', 'show', runId!, '--json'], { env })).stdout);
    expect(shown).toMatchObject({ workspaceId: repos.beta.id, cwd: worktree, branch: `svc/${runId}` });
    expect(shown.nodes.add.output).toBe('fixed by beta');
  });

  it('--workspace picks the other repository’s definition; --in-place runs in the checkout and says in place', async () => {
    const other = await runCli(['run', 'fix-add', '--workspace', repos.alpha.id, '--json'], { env, cwd: repos.beta.dir, timeoutMs: 60_000 });
    expect(other.code, other.stderr).toBe(0);
    expect(JSON.parse(other.stdout)).toMatchObject({ workspaceId: repos.alpha.id, nodes: { add: { output: 'fixed by alpha' } } });

    const inPlace = await runCli(['run', 'fix-add', '--in-place'], { env, cwd: repos.alpha.dir, timeoutMs: 60_000 });
    expect(inPlace.code, inPlace.stderr).toBe(0);
    expect(inPlace.stdout.split('\n')[0]).toBe(`fix-add: in place in ${repos.alpha.dir} (--in-place: no worktree, no branch)`);
    expect(readFileSync(join(repos.alpha.dir, 'added.txt'), 'utf8')).toBe('alpha\n');
    expect(git(repos.alpha.dir, 'status', '--porcelain')).toBe('?? added.txt');

    const both = await runCli(['run', 'fix-add', '--in-place', '--workspace', repos.alpha.id], { env, cwd: repos.alpha.dir });
    expect(both.code).toBe(2);
  });
});
