// `svc migrate-store` and homes (docs/scaling.md): the worktrees of a copied file store are in its
// SVC_HOME, so its runs and worktrees are recorded as that home's. A workspace run that waits for an
// approval when the store is copied continues on a server of that home, whichever server approves it,
// as a run started on the database does.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { killAllServes, spawnServe } from '../helpers/serve-process.js';
import { api, cleanupAll, makeProject, startRun, tempDir, waitForStatus } from '../engine/helpers.js';
import { usePostgres } from '../support/postgres.js';
import { makeBareRepository } from '../workspaces/git-fixtures.js';

const postgres = usePostgres();
afterEach(async () => {
  await killAllServes();
  await cleanupAll();
});

const GATED = {
  name: 'gated',
  nodes: [
    { id: 'write', bash: 'echo from-first > note.txt' },
    { id: 'gate', approval: { message: 'go on?' }, depends_on: ['write'] },
    { id: 'read', bash: 'cat note.txt; pwd', depends_on: ['gate'] },
  ],
};

it('a workspace run paused in a copied file store continues in its worktree on a server of that home, approved through another', async () => {
  const project = await makeProject([GATED]);
  const bare = makeBareRepository(await tempDir('svc-pg-migrate-homes-bare-'), 'widgets', { 'README.md': 'widgets\n' });
  const homeA = await tempDir('svc-pg-migrate-homes-a-');
  const fileServer = await spawnServe({ home: homeA, cwd: project });
  const registered = await api(fileServer, 'POST', '/api/workspaces', { url: `file://${bare}` });
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
  const workspaceId = registered.body.id;
  const runId = await startRun(fileServer, 'gated', { message: '', cwd: project, workspaceId });
  const paused = await waitForStatus(fileServer, runId, 'paused');
  const worktree = join(homeA, 'workspaces', workspaceId, 'worktrees', runId);
  expect(paused.cwd).toBe(worktree);
  await fileServer.stop();

  const url = await postgres.createDatabase();
  const migrated = await runCli(['migrate-store', '--to', url], { env: { SVC_HOME: homeA } });
  expect(migrated.code, migrated.stderr).toBe(0);

  const b = await spawnServe({ home: await tempDir('svc-pg-migrate-homes-b-'), cwd: project, env: { SVC_DATABASE_URL: url } });
  const a = await spawnServe({ home: homeA, cwd: project, env: { SVC_DATABASE_URL: url } });
  const aId = (await api(a, 'GET', '/api/health')).body.concurrency.store.serverId;
  const homeId = (await readFile(join(homeA, 'home-id'), 'utf8')).trim();
  expect((await api(b, 'GET', `/api/workflows/runs/${runId}`)).body).toMatchObject({ worktreeHome: { id: homeId, path: homeA, liveServers: 1 } });

  const approved = await api(b, 'POST', `/api/workflows/runs/${runId}/approve`, { comment: 'yes' });
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  const done = await waitForStatus(b, runId, 'completed');
  expect(done.serverId).toBe(aId);
  expect(done.nodes.read.output.split('\n')).toEqual(['from-first', worktree]);
}, 90_000);
