// The pool of prepared worktrees (docs/decisions.md, "Setup cache and pool"): `.svc/worktree.yaml`'s
// `pool: N` keeps N worktrees prepared ahead at the default branch's tip (setup run, or restored from
// the cache); a run takes one at once, gets its copies, `$SVC_PORT` and env values then, and the pool
// refills in the background; a run on another base with the same cache key takes one checked out
// there; `svc workspace show` lists them; clean-up and removal remove them; an invalid `pool:` is
// refused with file:line:col.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { git, useEmptyGitConfig } from '../helpers/git.js';
import { poolWorktrees, readyPoolWorktrees, recordingSetup, setupInvocations } from '../helpers/recorded-setup.js';
import { registerProject, runOn } from '../helpers/registered-project.js';
import { readLog, api, cleanupAll, startRun, startServer, tempDir, waitForRun, type Json, type Workflow } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
let dir: string;
let workspaceId: string;
let invocations: string;

const setupRuns = () => setupInvocations(invocations);

// What a run sees: the dependency tree, the copied file, its port and the workspace's env value.
const READ: Workflow = {
  name: 'read',
  nodes: [{ id: 'look', bash: 'cat node_modules/dep/VERSION; cat .env.local; echo "port=$SVC_PORT"; echo "flag=$POOL_FLAG"; cat README.md' }],
};
const WRITE: Workflow = { name: 'write', nodes: [{ id: 'edit', bash: 'echo changed > NOTES.md' }] };

const poolOf = () => poolWorktrees(server, workspaceId);
const readyAt = (commit: string) => readyPoolWorktrees(server, workspaceId, commit);
const tip = () => git(dir, 'rev-parse', 'main');

beforeAll(async () => {
  await useEmptyGitConfig();
  invocations = join(await tempDir('svc-pool-log-'), 'setup.log');
  server = await startServer({ socket: true });
  const project = await registerProject(server, {
    files: { 'README.md': '# pool v1\n', 'package-lock.json': 'v1\n', '.gitignore': 'node_modules/\n.env.local\n' },
    workflows: [READ, WRITE],
    // A stand-in for `npm ci` that records each invocation; `pool: 2` keeps two worktrees prepared.
    extra: { '.svc/worktree.yaml': recordingSetup(invocations, { pool: 2, copy: ['.env.local'] }) },
  });
  dir = project.dir;
  workspaceId = project.workspace.id;
  // The user's untracked file, and a workspace env value: both reach a run only when it takes a worktree.
  writeFileSync(join(dir, '.env.local'), 'LOCAL=1\n');
  expect((await api(server, 'PUT', `/api/workspaces/${workspaceId}/env`, { POOL_FLAG: 'on' })).status).toBe(200);
});
afterAll(cleanupAll);

describe('pool: 2', () => {
  it('fills after the workspace is registered: the setup runs once, the second worktree is restored from the cache', async () => {
    await expect.poll(() => readyAt(tip()), { timeout: 30_000 }).toBe(2);
    expect(setupRuns()).toBe(1);
    const worktrees = await poolOf();
    expect(worktrees.map((worktree) => worktree.prepared_by).sort()).toEqual(['cache', 'setup']);
    // Nothing of a run in them yet: no copied file.
    for (const worktree of worktrees) {
      expect(existsSync(join(worktree.path, 'node_modules/dep/VERSION'))).toBe(true);
      expect(existsSync(join(worktree.path, '.env.local'))).toBe(false);
    }
    // Never visible as runs.
    expect((await api(server, 'GET', `/api/workspaces/${workspaceId}/environments`)).body.environments).toEqual([]);
  });

  it('`svc workspace show` lists them, with their commit, state and path', async () => {
    const shown = await runSvcInProcess(['workspace', 'show', workspaceId], { SVC_URL: server.url });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/pool\s+2 of 2 ready on this server/);
    for (const worktree of await poolOf()) expect(shown.stdout).toContain(`ready     ${worktree.commit.slice(0, 12)}  prepared ${worktree.prepared_at}`);
    expect(shown.stdout).toContain(join(server.home, 'workspaces', workspaceId, 'pool', 'pool-'));
  });

  it('two runs at once both start from the pool, with copies, $SVC_PORT and env values applied as they take it; the pool refills', async () => {
    const taken = (await poolOf()).map((worktree) => worktree.path);
    const [a, b] = await Promise.all([startRun(server, 'read', { message: '', workspaceId }), startRun(server, 'read', { message: '', workspaceId })]);
    const runs = [await waitForRun(server, a), await waitForRun(server, b)];
    for (const run of runs) {
      expect(run.status, JSON.stringify(run.error)).toBe('completed');
      // Said in full if it fails: the setup's output, and what the server logged of its pool.
      const why = JSON.stringify({ output: run.setup.output, log: readLog(server.home).filter((line) => JSON.stringify(line).includes('pool')) });
      expect(run.setup, why).toMatchObject({ status: 'completed', source: 'pool', copied: ['.env.local'] });
      expect(run.setup.output).toMatch(/took a worktree prepared ahead from the pool \(prepared at .*\); the setup did not run for this run/);
      expect(run.nodes.look.output).toMatch(/^v1\nLOCAL=1\nport=\d+\nflag=on\n# pool v1$/);
      expect(run.cwd).toBe(join(server.home, 'workspaces', workspaceId, 'worktrees', run.id));
      expect(run.baseCommit).toBe(tip());
    }
    // Each run its own worktree and port.
    expect(runs[0]!.nodes.look.output).not.toBe(runs[1]!.nodes.look.output);
    for (const path of taken) expect(existsSync(path)).toBe(false);
    expect(setupRuns()).toBe(1);
    await expect.poll(() => readyAt(tip()), { timeout: 30_000 }).toBe(2);
    // Refilled from the cache: the script did not run again.
    expect(setupRuns()).toBe(1);
    const shown = await runSvcInProcess(['runs', 'show', a], { SVC_URL: server.url });
    expect(shown.stdout).toMatch(/setup: {4}completed in .* \(from the pool\)/);
    // The follower says it as the step ends.
    const followed = await runSvcInProcess(['--url', server.url, 'run', 'read', '--workspace', workspaceId], { SVC_HOME: server.home });
    expect(followed.code, followed.stderr).toBe(0);
    expect(followed.stdout).toMatch(/✔ setup \S+ \(from the pool\)/);
    await expect.poll(() => readyAt(tip()), { timeout: 30_000 }).toBe(2);
  });

  it('a run on another base with the same cache key takes one, checked out at its base', async () => {
    // A follow-on run starts at the earlier run's head: another commit, the same lockfile.
    const earlier = await runOn(server, 'write', workspaceId);
    expect(earlier.setup.source).toBe('pool');
    await expect.poll(() => readyAt(tip()), { timeout: 30_000 }).toBe(2);
    const follow = await startRun(server, 'read', { message: '', workspaceId, fromRunId: earlier.id });
    const run = await waitForRun(server, follow);
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    expect(run.baseCommit).toBe(earlier.headCommit);
    expect(run.baseCommit).not.toBe(tip());
    expect(run.setup.source).toBe('pool');
    expect(run.setup.output).toContain("checked out at the run's base (the same cache key), keeping only the cache paths");
    expect(git(run.cwd, 'show', '-s', '--format=%H', 'HEAD')).toBe(earlier.headCommit);
    expect(readFileSync(join(run.cwd, 'NOTES.md'), 'utf8')).toBe('changed\n');
    expect(git(run.cwd, 'status', '--porcelain')).toBe('');
    expect(setupRuns()).toBe(1);
  });

  it('a moved tip replaces the stale worktrees; one still serves a run whose base has the same key meanwhile', async () => {
    await expect.poll(() => readyAt(tip()), { timeout: 30_000 }).toBe(2);
    writeFileSync(join(dir, 'README.md'), '# pool v2\n');
    git(dir, 'commit', '-qam', 'readme v2');
    const run = await runOn(server, 'read', workspaceId);
    expect(run.setup.source).toBe('pool');
    expect(run.nodes.look.output).toMatch(/# pool v2$/);
    await expect.poll(() => readyAt(tip()), { timeout: 30_000 }).toBe(2);
    expect((await poolOf()).every((worktree) => worktree.commit === tip())).toBe(true);
  });

  it('a changed key is not taken: the run sets up as without a pool', async () => {
    writeFileSync(join(dir, 'package-lock.json'), 'v2\n');
    git(dir, 'commit', '-qam', 'lockfile v2');
    const before = setupRuns();
    const run = await runOn(server, 'read', workspaceId);
    expect(run.setup.source).toBe('setup');
    expect(run.nodes.look.output).toMatch(/^v2\n/);
    expect(setupRuns()).toBeGreaterThan(before);
  });

  it('`svc workspace cleanup` removes them; a run placed on the workspace fills the pool again', async () => {
    await expect.poll(() => readyAt(tip()), { timeout: 30_000 }).toBe(2);
    const paths = (await poolOf()).map((worktree) => worktree.path);
    const cleaned = await runSvcInProcess(['workspace', 'cleanup', '--workspace', workspaceId], { SVC_URL: server.url });
    expect(cleaned.code, cleaned.stderr).toBe(0);
    expect(cleaned.stdout).toContain('Removed 2 prepared worktree(s) of the pool');
    for (const path of paths) expect(existsSync(path)).toBe(false);
    expect(git(dir, 'worktree', 'list')).not.toContain('/pool/');
    expect(await poolOf()).toEqual([]);
    const run = await runOn(server, 'read', workspaceId);
    expect(run.setup.source).toBe('cache');
    await expect.poll(() => readyAt(tip()), { timeout: 30_000 }).toBe(2);
  });

  it('removing the workspace removes them, and leaves no note of them in the repository', async () => {
    const paths = (await poolOf()).map((worktree) => worktree.path);
    expect(paths).toHaveLength(2);
    expect((await api(server, 'DELETE', `/api/workspaces/${workspaceId}`)).status).toBe(200);
    for (const path of paths) expect(existsSync(path)).toBe(false);
    expect(git(dir, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(existsSync(join(server.home, 'workspaces', workspaceId))).toBe(false);
  });
});

describe('a pool whose setup leaves files .gitignore does not hide', () => {
  it('commits them as `<workflow>: setup` on the run that takes the worktree, apart from its first node', async () => {
    const own = await startServer();
    const { dir: repo, workspace } = await registerProject(own, {
      workflows: [WRITE],
      extra: { '.svc/worktree.yaml': 'setup: echo made > generated.txt\npool: 1\n' },
    });
    const ready = async () => (await api(own, 'GET', `/api/workspaces/${workspace.id}`)).body.pool.worktrees.filter((w: Json) => w.state === 'ready').length;
    await expect.poll(ready, { timeout: 30_000 }).toBe(1);
    const run = await runOn(own, 'write', workspace.id);
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    expect(run.setup.source).toBe('pool');
    expect(git(repo, 'log', '--format=%s', `${run.baseCommit}..svc/${run.id}`).split('\n')).toEqual(['write: edit', 'write: setup']);
    expect(git(repo, 'show', '--name-only', '--format=', `svc/${run.id}~1`)).toBe('generated.txt');
    expect(git(repo, 'show', '--name-only', '--format=', `svc/${run.id}`)).toBe('NOTES.md');
  });
});

describe('pool: in .svc/worktree.yaml', () => {
  it.each([
    ['pool: 20', /\.svc\/worktree\.yaml:2:7: pool: .*8/],
    ['pool: -1', /\.svc\/worktree\.yaml:2:7: pool: .*0/],
    ['pool: two', /\.svc\/worktree\.yaml:2:7: pool: .*number/],
  ])('`%s` is refused with file:line:col, on the run and on the workspace', async (line, error) => {
    const own = await startServer();
    const { workspace } = await registerProject(own, { workflows: [READ], extra: { '.svc/worktree.yaml': `setup: echo hi\n${line}\n` } });
    const run = await runOn(own, 'read', workspace.id);
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(error);
    const { body } = await api(own, 'GET', `/api/workspaces/${workspace.id}`);
    expect(body.pool).toMatchObject({ size: 0, worktrees: [] });
    expect(body.pool.error).toMatch(error);
  });
});
