// The CLI's offline mode on a shared database (docs/scaling.md): a `svc` with SVC_DATABASE_URL and
// no server of its own records the run `pending` and leaves it, and its worktree, to the server
// that claims it (telling the servers at once); it says so, and follows the run to its end whichever
// server executes it. A cancel it makes reaches the server executing the run.
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { closedPort, killAllServes, spawnCli, spawnServe } from '../helpers/serve-process.js';
import {
  api,
  cleanupAll,
  getRun,
  projectWithWorkflows,
  readPidFile,
  startRun,
  tempDir,
  waitFor,
  waitForDeath,
  waitForStatus,
  type Json,
} from '../helpers/runs.js';
import { queryRows, usePostgres } from '../support/postgres.js';
import { makeRepository } from '../helpers/git.js';

const postgres = usePostgres();
afterEach(async () => {
  await killAllServes();
  await cleanupAll();
});

const LEASE_MS = '1500';
const WAITS = /waits .*pending.* until a server/;

/** A workspace repository whose committed workflow prints where it runs. */
async function workspaceRepository(): Promise<string> {
  const repo = realpathSync(await tempDir('svc-pg-cli-repo-'));
  await mkdir(join(repo, '.svc', 'workflows'), { recursive: true });
  const where = ['name: where', 'description: where it runs', 'nodes:', '  - id: show', '    bash: "pwd; git rev-parse --abbrev-ref HEAD"'].join('\n');
  await writeFile(join(repo, '.svc', 'workflows', 'where.yaml'), where);
  return makeRepository(repo, { 'README.md': '# demo\n' });
}

/** The environment of a CLI with its own SVC_HOME (no server there) on the database. */
async function offlineEnv(url: string): Promise<Record<string, string>> {
  return { SVC_HOME: await tempDir('svc-pg-cli-home-'), SVC_DATABASE_URL: url, PORT: String(await closedPort()) };
}

/** The built CLI as a subprocess whose stderr can be read while it runs. */

function runRows(url: string) {
  return queryRows<{ id: string; status: string; server_id: string | null }>(url, 'SELECT id, status, server_id FROM runs');
}

it('svc run with no server: the run waits pending, a server started afterwards claims it and runs it in its own worktree, the CLI follows it to the end', async () => {
  const url = await postgres.createDatabase();
  const repo = await workspaceRepository();
  const env = await offlineEnv(url);
  const added = await runCli(['workspace', 'add', repo, '--json'], { env, cwd: repo });
  expect(added.code, added.stderr).toBe(0);
  const workspaceId = (JSON.parse(added.stdout) as Json).id as string;

  const cli = spawnCli(['run', 'where', 'from the CLI', '--workspace', workspaceId], env, repo);
  const [pending] = await waitFor(
    async () => {
      const rows = await runRows(url);
      return rows.length === 1 && WAITS.test(cli.stderr()) ? rows : undefined;
    },
    20_000,
    cli.stderr,
  );
  expect(pending).toMatchObject({ status: 'pending', server_id: null });
  // The CLI made no worktree: the server that claims the run does.
  expect(existsSync(join(env.SVC_HOME!, 'workspaces'))).toBe(false);

  const serverHome = await tempDir('svc-pg-cli-server-');
  const server = await spawnServe({ home: serverHome, cwd: await tempDir('svc-pg-cli-cwd-'), env: { SVC_DATABASE_URL: url, SVC_RUN_LEASE_MS: LEASE_MS } });
  const result = await cli.done;
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toContain(`completed where ${pending!.id}`);

  const run = (await api(server, 'GET', `/api/workflows/runs/${pending!.id}`)).body as Json;
  const worktree = join(serverHome, 'workspaces', workspaceId, 'worktrees', pending!.id);
  expect(run).toMatchObject({ status: 'completed', cwd: worktree, workspaceId });
  expect(run.nodes.show.output).toBe(`${worktree}\nsvc/${pending!.id}`);
  expect((await runRows(url))[0]!.server_id).toBe(((await api(server, 'GET', '/api/health')).body as Json).concurrency.store.serverId);
}, 60_000);

it('svc run with no server of its own beside a server on the database: followed to the end; --detach leaves it queued', async () => {
  const url = await postgres.createDatabase();
  const repo = await workspaceRepository();
  // The default lease: the run is claimed once the CLI announces it, not at a heartbeat of a test's short lease.
  const server = await spawnServe({ home: await tempDir('svc-pg-cli-server-'), cwd: repo, env: { SVC_DATABASE_URL: url } });
  const env = await offlineEnv(url);

  const followed = await runCli(['run', 'where', 'followed', '--cwd', repo], { env, cwd: repo, timeoutMs: 30_000 });
  expect(followed.code, followed.stderr).toBe(0);
  expect(followed.stderr).toMatch(WAITS);
  const [row] = await runRows(url);
  expect(followed.stdout).toContain(`completed where ${row!.id}`);

  const detached = await runCli(['run', 'where', 'detached', '--cwd', repo, '--detach'], { env, cwd: repo });
  expect(detached.code, detached.stderr).toBe(0);
  const runId = detached.stdout.trim();
  expect(runId).toMatch(/^run_/);
  await waitForStatus(server, runId, 'completed');
}, 60_000);

it('svc cancel with no server of its own stops the process tree on the server executing the run; /api/health shows each server its share', async () => {
  const url = await postgres.createDatabase();
  const dir = await tempDir('svc-pg-cli-nap-');
  const project = await projectWithWorkflows([{ name: 'nap', nodes: [{ id: 'nap', bash: `echo $$ > ${dir}/pid; exec sleep 60` }] }]);
  const server = await spawnServe({ home: await tempDir('svc-pg-cli-server-'), cwd: project, env: { SVC_DATABASE_URL: url, SVC_RUN_LEASE_MS: LEASE_MS } });
  const runId = await startRun(server, 'nap', { message: '', cwd: project });
  const pid = await readPidFile(join(dir, 'pid'));
  // /api/health: the store in use and each server's share of the work.
  const idle = await spawnServe({ home: await tempDir('svc-pg-cli-server-'), cwd: project, env: { SVC_DATABASE_URL: url, SVC_RUN_LEASE_MS: LEASE_MS } });
  const share = async (target: typeof server) => {
    const { concurrency } = (await api(target, 'GET', '/api/health')).body as Json;
    return { running: concurrency.running, ...concurrency.store, serverId: typeof concurrency.store.serverId };
  };
  const everywhere = { kind: 'postgres', servers: 2, runningEverywhere: 1, serverId: 'string' };
  expect(await share(server)).toEqual({ running: 1, ...everywhere });
  expect(await share(idle)).toEqual({ running: 0, ...everywhere });
  const cancelled = await runCli(['cancel', runId], { env: await offlineEnv(url), cwd: project });
  expect(cancelled.code, cancelled.stderr).toBe(0);
  await waitForDeath(pid);
  expect((await getRun(server, runId)).status).toBe('cancelled');
}, 60_000);

it('svc approve with no server of its own: the run waits pending for a server, which carries it on', async () => {
  const url = await postgres.createDatabase();
  const project = await projectWithWorkflows([
    {
      name: 'gated',
      nodes: [
        { id: 'gate', approval: { message: 'go?' } },
        { id: 'after', bash: 'echo after', depends_on: ['gate'] },
      ],
    },
  ]);
  const server = await spawnServe({ home: await tempDir('svc-pg-cli-server-'), cwd: project, env: { SVC_DATABASE_URL: url } });
  const runId = await startRun(server, 'gated', { message: '', cwd: project });
  await waitForStatus(server, runId, 'paused');
  const approved = await runCli(['approve', runId, '--comment', 'yes'], { env: await offlineEnv(url), cwd: project });
  expect(approved.code, approved.stderr).toBe(0);
  expect(approved.stderr).toMatch(WAITS);
  const run = await waitForStatus(server, runId, 'completed');
  expect(run.nodes.after.output).toBe('after');
}, 60_000);
