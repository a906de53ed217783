// Several `svc serve` processes on one PostgreSQL database, each with its own SVC_HOME (docs/scaling.md,
// "Workspaces per server"): a run's worktree lives in one home, so an approved or resumed run continues
// on a server of that home, and waits, saying why, while none runs; deletions and clean-ups received
// by one server reach every server, each removing what its own home holds; `run_deleted` reaches
// every server's streams; the run detail names the server that executes the run; a file store copied by
// `svc migrate-store` brings its worktrees' runs in as its home's.
//
// Both servers run on this one machine and so see each other's files. Another machine is stood in for
// by what a server does and does not touch: a server frozen (SIGSTOP) cannot remove anything, so what
// disappears while it is frozen was removed by another server.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { EventSource } from 'eventsource';
import { runCli } from '../helpers/cli.js';
import { killAllServes, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { api, cleanupAll, getRun, projectWithWorkflows, sleep, startRun, tempDir, waitFor, waitForStatus, type Json } from '../helpers/runs.js';
import { queryRows, usePostgres } from '../support/postgres.js';
import { git, makeBareRepository } from '../helpers/git.js';

const postgres = usePostgres();
afterEach(async () => {
  await killAllServes();
  await cleanupAll();
});

interface Server {
  home: string;
  server: ServeProcess;
  id: string;
}

const GATED = {
  name: 'gated',
  nodes: [
    { id: 'write', bash: 'echo from-first > note.txt' },
    { id: 'gate', approval: { message: 'go on?' }, depends_on: ['write'] },
    { id: 'read', bash: 'cat note.txt; pwd', depends_on: ['gate'] },
  ],
};
const QUICK = { name: 'quick', nodes: [{ id: 'touch', bash: 'echo made > made.txt' }] };
/** Fails on its first pass, after `write` has written into the worktree; reads what it wrote on the second. */
const flaky = (marker: string) => ({
  name: 'flaky',
  nodes: [
    { id: 'write', bash: 'echo from-first > note.txt' },
    { id: 'check', bash: `if [ -f ${marker} ]; then cat note.txt; pwd; else touch ${marker}; exit 1; fi`, depends_on: ['write'] },
  ],
});

async function serve(url: string, project: string, home?: string): Promise<Server> {
  const dir = home ?? (await tempDir('svc-pg-homes-'));
  const server = await spawnServe({ home: dir, cwd: project, env: { SVC_DATABASE_URL: url } });
  const health = await api(server, 'GET', '/api/health');
  return { home: dir, server, id: health.body.concurrency.store.serverId };
}

/** A workspace cloned by URL through `through`, and a project whose workflows run on it. */
async function setUp() {
  const marker = join(await tempDir('svc-pg-homes-marker-'), 'failed-once');
  const project = await projectWithWorkflows([GATED, QUICK, flaky(marker)]);
  const bare = makeBareRepository(await tempDir('svc-pg-homes-bare-'), 'widgets', { 'README.md': 'widgets\n' });
  return { project, bare };
}

async function register(server: ServeProcess, bare: string): Promise<string> {
  const registered = await api(server, 'POST', '/api/workspaces', { url: `file://${bare}` });
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
  return registered.body.id;
}

/** Runs `work` with `server` frozen: it can neither act nor answer meanwhile. */
async function whileFrozen<T>(server: ServeProcess, work: () => Promise<T>): Promise<T> {
  process.kill(server.pid, 'SIGSTOP');
  try {
    return await work();
  } finally {
    process.kill(server.pid, 'SIGCONT');
  }
}

it('a workspace run paused on server A and approved through server B continues on A, in A’s worktree', async () => {
  const url = await postgres.createDatabase();
  const { project, bare } = await setUp();
  const a = await serve(url, project);
  const b = await serve(url, project);
  const workspaceId = await register(a.server, bare);

  // Started through A, which has free slots: A executes it, in a worktree of its own home.
  const runId = await startRun(a.server, 'gated', { message: '', cwd: project, workspaceId });
  const paused = await waitForStatus(b.server, runId, 'paused');
  const worktree = join(a.home, 'workspaces', workspaceId, 'worktrees', runId);
  expect(paused.cwd).toBe(worktree);
  const homeId = (await readFile(join(a.home, 'home-id'), 'utf8')).trim();
  expect(paused).toMatchObject({ serverId: a.id, worktreeHome: { id: homeId, path: a.home, liveServers: 1 } });
  expect(paused.waitingFor).toBeUndefined();
  // Placed at launch by A: the branch and the commit it started from are on the record, and the
  // diff is read where the branch is, on a server of A's home (docs/scaling.md).
  expect(paused).toMatchObject({ branch: `svc/${runId}`, baseCommit: expect.stringMatching(/^[0-9a-f]{40}$/) });
  expect(paused.nodes.write.commit).toBe(paused.headCommit);
  const diff = await api(a.server, 'GET', `/api/workflows/runs/${runId}/diff`);
  expect(diff.body.files, JSON.stringify(diff.body)).toEqual([{ path: 'note.txt', status: 'added', insertions: 1, deletions: 0 }]);
  expect(await api(b.server, 'GET', `/api/workflows/runs/${runId}/diff`)).toMatchObject({
    status: 409,
    body: { error: 'worktree_elsewhere', details: { homeId } },
  });

  const approved = await api(b.server, 'POST', `/api/workflows/runs/${runId}/approve`, { comment: 'yes' });
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  const done = await waitForStatus(b.server, runId, 'completed');
  expect(done.nodes.read.output.split('\n')).toEqual(['from-first', worktree]);
  expect(done.serverId).toBe(a.id);
  const started = (done.events as Json[]).filter((e) => e.type === 'run_started');
  expect(started).toHaveLength(2);
  // B never made a worktree or a clone for the run.
  expect(existsSync(join(b.home, 'workspaces', workspaceId))).toBe(false);

  // The CLI's run detail names the server and the home.
  const shown = await runCli(['runs', 'show', runId, '--url', b.server.url], { env: { SVC_HOME: b.home, NO_COLOR: '1' } });
  expect(shown.code, shown.stderr).toBe(0);
  expect(shown.stdout).toContain(`server:   ${a.id}   worktree home: ${hostname()}:${a.home}`);
}, 90_000);

it('a workspace run failed on server A, resumed and started again through server B, continues on A in A’s worktree', async () => {
  const url = await postgres.createDatabase();
  const { project, bare } = await setUp();
  const a = await serve(url, project);
  const b = await serve(url, project);
  const workspaceId = await register(a.server, bare);
  const runId = await startRun(a.server, 'flaky', { message: '', cwd: project, workspaceId });
  const failed = await waitForStatus(b.server, runId, 'failed');
  expect(failed.serverId).toBe(a.id);

  expect((await api(b.server, 'POST', `/api/workflows/runs/${runId}/resume`)).status).toBe(200);
  const again = await api(b.server, 'POST', '/api/workflows/flaky/run', { message: '', cwd: project, conversationId: failed.conversationId });
  expect(again.status, JSON.stringify(again.body)).toBe(202);
  expect(again.body.runId).toBe(runId);
  const done = await waitForStatus(b.server, runId, 'completed');
  const worktree = join(a.home, 'workspaces', workspaceId, 'worktrees', runId);
  expect(done.nodes.check.output.split('\n')).toEqual(['from-first', worktree]);
  expect(done.serverId).toBe(a.id);
  expect(existsSync(join(b.home, 'workspaces', workspaceId))).toBe(false);
}, 90_000);

it('an approved run whose home has no server running waits pending, saying so, and continues when a server of that home starts', async () => {
  const url = await postgres.createDatabase();
  const { project, bare } = await setUp();
  const a = await serve(url, project);
  const b = await serve(url, project);
  const workspaceId = await register(a.server, bare);
  const runId = await startRun(a.server, 'gated', { message: '', cwd: project, workspaceId });
  await waitForStatus(b.server, runId, 'paused');
  await a.server.stop();

  expect((await api(b.server, 'POST', `/api/workflows/runs/${runId}/approve`)).status).toBe(200);
  // B has free slots, but the run's worktree is not in B's home: it stays pending, and says why.
  await sleep(1500); // on purpose: B gets its chance to take the run it must not take
  const waiting = await getRun(b.server, runId);
  expect(waiting.status).toBe('pending');
  expect(waiting.worktreeHome).toMatchObject({ path: a.home, liveServers: 0 });
  expect(waiting.waitingFor).toContain(`SVC_HOME ${a.home}`);
  expect(waiting.waitingFor).toContain('none is running there');
  const shown = await runCli(['runs', 'show', runId, '--url', b.server.url], { env: { SVC_HOME: b.home, NO_COLOR: '1' } });
  expect(shown.stdout).toContain(`waiting:  for a server of home ${waiting.worktreeHome.id} (host ${hostname()}, SVC_HOME ${a.home})`);

  // A server started again on A's home claims it and carries on in the worktree there.
  const again = await serve(url, project, a.home);
  const done = await waitForStatus(b.server, runId, 'completed');
  expect(done.nodes.read.output.split('\n')).toEqual(['from-first', join(a.home, 'workspaces', workspaceId, 'worktrees', runId)]);
  expect(done.serverId).toBe(again.id);
  expect(done.waitingFor).toBeUndefined();
}, 90_000);

it('deleting a run, cleaning up and deleting a workspace through server B remove what server A’s home holds, by A', async () => {
  const url = await postgres.createDatabase();
  const { project, bare } = await setUp();
  const a = await serve(url, project);
  const b = await serve(url, project);
  const workspaceId = await register(a.server, bare);
  const runs: string[] = [];
  for (let i = 0; i < 2; i++) {
    const runId = await startRun(a.server, 'quick', { message: '', cwd: project, workspaceId });
    const done = await waitForStatus(a.server, runId, 'completed');
    expect(done.serverId).toBe(a.id);
    runs.push(runId);
  }
  const worktree = (runId: string) => join(a.home, 'workspaces', workspaceId, 'worktrees', runId);
  const environments = async () => (await api(b.server, 'GET', `/api/workspaces/${workspaceId}/environments`)).body.environments as Json[];
  expect(runs.every((runId) => existsSync(worktree(runId)))).toBe(true);
  expect((await environments()).map((e) => e.home_id)).toEqual([expect.any(String), expect.any(String)]);

  // A run deleted through B: B leaves A's files alone; A removes the worktree once it hears of it.
  await whileFrozen(a.server, async () => {
    expect((await api(b.server, 'DELETE', `/api/workflows/runs/${runs[0]}`)).status).toBe(200);
    await sleep(500); // on purpose: what must not happen gets its chance
    expect(existsSync(worktree(runs[0]!))).toBe(true);
  });
  await waitFor(
    () => !existsSync(worktree(runs[0]!)),
    10_000,
    () => 'the deleted run’s worktree removed by A',
  );
  await waitFor(async () => (await environments()).length === 1, 10_000);

  // A clean-up through B: listed as removed there, removed by A.
  const cleaned = await whileFrozen(a.server, async () => {
    const answer = await api(b.server, 'POST', '/api/workspaces/cleanup', { olderThan: '0s' });
    await sleep(500); // on purpose: what must not happen gets its chance
    expect(existsSync(worktree(runs[1]!))).toBe(true);
    return answer;
  });
  expect(cleaned.status, JSON.stringify(cleaned.body)).toBe(200);
  expect((cleaned.body.removed as Json[]).map((e) => e.run_id)).toEqual([runs[1]]);
  await waitFor(
    () => !existsSync(worktree(runs[1]!)),
    10_000,
    () => 'the cleaned-up worktree removed by A',
  );
  await waitFor(async () => (await environments()).length === 0, 10_000);

  // The workspace deleted through B: A's clone goes, removed by A.
  const third = await startRun(a.server, 'quick', { message: '', cwd: project, workspaceId });
  await waitForStatus(a.server, third, 'completed');
  await whileFrozen(a.server, async () => {
    expect((await api(b.server, 'DELETE', `/api/workspaces/${workspaceId}`)).status).toBe(200);
    await sleep(500); // on purpose: what must not happen gets its chance
    expect(existsSync(join(a.home, 'workspaces', workspaceId, 'source'))).toBe(true);
  });
  await waitFor(
    () => !existsSync(join(a.home, 'workspaces', workspaceId)),
    10_000,
    () => 'A’s clone removed by A',
  );
  expect(await queryRows(url, 'SELECT id FROM workspace_environments')).toEqual([]);
}, 120_000);

it('a clean-up of merged runs through server B: listed as elsewhere there; A removes the merged one and keeps the unmerged one until forced', async () => {
  const url = await postgres.createDatabase();
  const project = await projectWithWorkflows([{ name: 'note', nodes: [{ id: 'w', bash: 'echo $RUN_ID > "$RUN_ID.txt"' }] }]);
  const bare = makeBareRepository(await tempDir('svc-pg-homes-bare-'), 'widgets', { 'README.md': 'widgets\n' });
  const a = await serve(url, project);
  const b = await serve(url, project);
  const workspaceId = await register(a.server, bare);
  const [merged, unmerged] = [await startRun(a.server, 'note', { message: '', workspaceId }), await startRun(a.server, 'note', { message: '', workspaceId })];
  for (const runId of [merged, unmerged]) await waitForStatus(a.server, runId, 'completed');
  // Merged in A's clone, where the branch is: only A can tell.
  git(join(a.home, 'workspaces', workspaceId, 'source'), 'merge', '-q', '--no-edit', `svc/${merged}`);
  const worktree = (runId: string) => join(a.home, 'workspaces', workspaceId, 'worktrees', runId);
  const environments = async () => (await api(b.server, 'GET', `/api/workspaces/${workspaceId}/environments`)).body.environments as Json[];

  const cleaned = await whileFrozen(a.server, async () => {
    const answer = await api(b.server, 'POST', '/api/workspaces/cleanup', { merged: true });
    await sleep(500); // on purpose: what must not happen gets its chance
    expect(existsSync(worktree(merged))).toBe(true);
    return answer;
  });
  expect(cleaned.status, JSON.stringify(cleaned.body)).toBe(200);
  expect(cleaned.body).toMatchObject({ removed: [], kept: [] });
  expect((cleaned.body.elsewhere as Json[]).map((e) => e.run_id).sort()).toEqual([merged, unmerged].sort());
  await waitFor(
    () => !existsSync(worktree(merged)),
    10_000,
    () => 'the merged run’s worktree removed by A',
  );
  await waitFor(async () => (await environments()).length === 1, 10_000);
  expect(existsSync(worktree(unmerged))).toBe(true);
  // B's own disk holds none of them; A's counts the one left.
  expect((await api(b.server, 'GET', `/api/workspaces/${workspaceId}`)).body.disk).toEqual({ worktrees: 0, bytes: 0 });
  expect((await api(a.server, 'GET', `/api/workspaces/${workspaceId}`)).body.disk).toMatchObject({ worktrees: 1 });

  expect((await api(b.server, 'POST', '/api/workspaces/cleanup', { merged: true, force: true })).status).toBe(200);
  await waitFor(
    () => !existsSync(worktree(unmerged)),
    10_000,
    () => 'the unmerged run’s worktree removed by A when forced',
  );
}, 90_000);

it('a run deleted through server B: SSE on server A sees run_deleted, on the dashboard stream and on the run’s own', async () => {
  const url = await postgres.createDatabase();
  const project = await projectWithWorkflows([{ name: 'plain', nodes: [{ id: 'one', bash: 'echo one' }] }]);
  const a = await serve(url, project);
  const b = await serve(url, project);
  const runId = await startRun(b.server, 'plain', { message: '', cwd: project });
  const run = await waitForStatus(b.server, runId, 'completed');
  const seen = { dashboard: [] as Json[], own: [] as Json[] };
  const sources = [
    [new EventSource(`${a.server.url}/api/stream/__dashboard__`), seen.dashboard],
    [new EventSource(`${a.server.url}/api/stream/${run.conversationId}`), seen.own],
  ] as const;
  try {
    for (const [source, into] of sources) {
      source.onmessage = (message) => into.push(JSON.parse(message.data));
      await new Promise<void>((resolve) => (source.onopen = () => resolve()));
    }
    expect((await api(b.server, 'DELETE', `/api/workflows/runs/${runId}`)).status).toBe(200);
    for (const into of [seen.dashboard, seen.own]) {
      const deleted = await waitFor(
        () => into.find((e) => e.type === 'run_deleted'),
        10_000,
        () => JSON.stringify(into),
      );
      expect(deleted).toMatchObject({ type: 'run_deleted', runId, conversationId: run.conversationId, platformId: run.platformId });
    }
    // Once: the deleting server's own streams are not sent it a second time.
    const onB: Json[] = [];
    const onBSource = new EventSource(`${b.server.url}/api/stream/__dashboard__`);
    onBSource.onmessage = (message) => onB.push(JSON.parse(message.data));
    await new Promise<void>((resolve) => (onBSource.onopen = () => resolve()));
    const second = await startRun(a.server, 'plain', { message: '', cwd: project });
    await waitForStatus(a.server, second, 'completed');
    expect((await api(a.server, 'DELETE', `/api/workflows/runs/${second}`)).status).toBe(200);
    await waitFor(() => onB.some((e) => e.type === 'run_deleted' && e.runId === second), 10_000);
    await sleep(500); // on purpose: what must not happen gets its chance
    expect(seen.dashboard.filter((e) => e.type === 'run_deleted' && e.runId === second)).toHaveLength(1);
    onBSource.close();
  } finally {
    for (const [source] of sources) source.close();
  }
}, 60_000);

it('a workspace run paused in a file store copied by svc migrate-store continues in its worktree on a server of that home, approved through another', async () => {
  const { project, bare } = await setUp();
  const homeA = await tempDir('svc-pg-homes-');
  const fileServer = await spawnServe({ home: homeA, cwd: project });
  const workspaceId = await register(fileServer, bare);
  const runId = await startRun(fileServer, 'gated', { message: '', cwd: project, workspaceId });
  const worktree = join(homeA, 'workspaces', workspaceId, 'worktrees', runId);
  expect((await waitForStatus(fileServer, runId, 'paused')).cwd).toBe(worktree);
  await fileServer.stop();
  const url = await postgres.createDatabase();
  const migrated = await runCli(['migrate-store', '--to', url], { env: { SVC_HOME: homeA } });
  expect(migrated.code, migrated.stderr).toBe(0);

  // The copied worktree is in A's home: the run is that home's, whichever server is asked.
  const b = await serve(url, project);
  const a = await serve(url, project, homeA);
  const homeId = (await readFile(join(homeA, 'home-id'), 'utf8')).trim();
  expect(await getRun(b.server, runId)).toMatchObject({ worktreeHome: { id: homeId, path: homeA, liveServers: 1 } });
  const approved = await api(b.server, 'POST', `/api/workflows/runs/${runId}/approve`, { comment: 'yes' });
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  const done = await waitForStatus(b.server, runId, 'completed');
  expect(done.serverId).toBe(a.id);
  expect(done.nodes.read.output.split('\n')).toEqual(['from-first', worktree]);
}, 90_000);
