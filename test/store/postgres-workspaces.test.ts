// Runs on a workspace with several `svc serve` processes on one PostgreSQL database
// (docs/scaling.md, docs/contract.md, "Workspaces"): the server that executes a run makes its
// worktree in its own SVC_HOME, from its own clone of the workspace made on demand; a workspace
// registered by path must exist at that path on the executing server, else the run fails saying so.
import { existsSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { killAllServes, spawnServe } from '../helpers/serve-process.js';
import { api, cleanupAll, projectWithWorkflows, startRun, tempDir, waitForRun, waitForStatus, type Json } from '../helpers/runs.js';
import { usePostgres } from '../support/postgres.js';
import { makeBareRepository, makeRepository } from '../helpers/git.js';

const postgres = usePostgres();
afterEach(async () => {
  await killAllServes();
  await cleanupAll();
});

async function serverOf(url: string, runId: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ server_id: string | null }>('SELECT server_id FROM runs WHERE id = $1', [runId])).rows[0]!.server_id;
  } finally {
    await client.end();
  }
}

/**
 * Server A with one slot, taken by a run that waits for `release`; then server B. Every run
 * started through A afterwards is executed by B, the only server with a free slot.
 */
async function aBusyThenB(url: string) {
  const gate = await tempDir('svc-pg-ws-gate-');
  const project = await projectWithWorkflows([
    { name: 'hold', nodes: [{ id: 'wait', bash: `while [ ! -f ${gate}/go ]; do sleep 0.1; done` }] },
    { name: 'look', nodes: [{ id: 'show', bash: 'cat README.md; git rev-parse --abbrev-ref HEAD; pwd' }] },
  ]);
  const serve = async (env: Record<string, string>) => {
    const home = await tempDir('svc-pg-ws-home-');
    return { home, server: await spawnServe({ home, cwd: project, env: { SVC_MAX_CONCURRENT_RUNS: '1', ...env } }) };
  };
  const a = await serve({ SVC_DATABASE_URL: url });
  const holding = await startRun(a.server, 'hold', { message: '', cwd: project });
  await waitForStatus(a.server, holding, 'running');
  const b = await serve({ SVC_DATABASE_URL: url });
  const release = async () => {
    await writeFile(join(gate, 'go'), '');
    await waitForStatus(a.server, holding, 'completed');
  };
  return { project, a, b, holding, release };
}

it('a run on a workspace cloned through server A executes on server B in a worktree of B’s own clone', async () => {
  const url = await postgres.createDatabase();
  const { project, a, b, holding, release } = await aBusyThenB(url);
  const bare = makeBareRepository(await tempDir('svc-pg-ws-bare-'), 'widgets', { 'README.md': 'hello from widgets\n' });
  const registered = await api(a.server, 'POST', '/api/workspaces', { url: `file://${bare}` });
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
  const workspace = registered.body as Json;
  expect(workspace.path).toBe(join(a.home, 'workspaces', workspace.id, 'source'));
  // B has no clone until it executes a run on the workspace.
  expect(existsSync(join(b.home, 'workspaces', workspace.id))).toBe(false);

  const runId = await startRun(a.server, 'look', { message: '', cwd: project, workspaceId: workspace.id });
  const run = await waitForRun(b.server, runId);
  expect(run.status, JSON.stringify(run)).toBe('completed');
  const worktree = join(b.home, 'workspaces', workspace.id, 'worktrees', runId);
  expect(run.cwd).toBe(worktree);
  expect(run.nodes.show.output.split('\n')).toEqual(['hello from widgets', `svc/${runId}`, worktree]);
  expect(await serverOf(url, runId)).not.toBe(await serverOf(url, holding));
  // B's own clone, and the worktree's git directory is in it; A made no worktree for the run.
  expect(existsSync(join(b.home, 'workspaces', workspace.id, 'source', '.git'))).toBe(true);
  expect(existsSync(join(b.home, 'workspaces', workspace.id, 'source', '.git', 'worktrees', runId))).toBe(true);
  expect(existsSync(join(a.home, 'workspaces', workspace.id, 'worktrees', runId))).toBe(false);
  for (const server of [a.server, b.server]) {
    const environments = (await api(server, 'GET', `/api/workspaces/${workspace.id}/environments`)).body.environments as Json[];
    expect(environments).toEqual([expect.objectContaining({ run_id: runId, path: worktree, repository: join(b.home, 'workspaces', workspace.id, 'source') })]);
  }

  // A second run on B uses the clone B already has: the clone is not made again.
  await writeFile(join(b.home, 'workspaces', workspace.id, 'source', 'marker-not-in-git'), '');
  const second = await startRun(a.server, 'look', { message: '', cwd: project, workspaceId: workspace.id });
  expect((await waitForRun(b.server, second)).status).toBe('completed');
  expect(existsSync(join(b.home, 'workspaces', workspace.id, 'source', 'marker-not-in-git'))).toBe(true);
  await release();
}, 90_000);

it('a run on a workspace registered by path whose directory is missing on the executing server fails, naming the path and the server', async () => {
  const url = await postgres.createDatabase();
  const { project, a, b, release } = await aBusyThenB(url);
  const dir = join(await tempDir('svc-pg-ws-path-'), 'checkout');
  await mkdir(dir);
  makeRepository(dir, { 'README.md': 'by path\n' });
  const registered = await api(a.server, 'POST', '/api/workspaces', { path: dir });
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
  const workspace = registered.body as Json;
  // On one machine both servers see one filesystem: the directory going away stands for a server
  // on a machine where it was never made.
  await rename(dir, `${dir}-moved`);

  const runId = await startRun(a.server, 'look', { message: '', cwd: project, workspaceId: workspace.id });
  const run = await waitForRun(b.server, runId);
  expect(run.status).toBe('failed');
  expect(run.error).toContain(`registered by path ${dir}, which does not exist on server`);
  expect(run.error).toContain(`(SVC_HOME ${b.home})`);
  expect(run.nodes.show.status).not.toBe('completed');
  expect((await api(a.server, 'GET', `/api/workspaces/${workspace.id}/environments`)).body.environments).toEqual([]);

  // Back at its path, the next run executes there (in a worktree under B's home).
  await rename(`${dir}-moved`, dir);
  const again = await startRun(a.server, 'look', { message: '', cwd: project, workspaceId: workspace.id });
  const done = await waitForRun(b.server, again);
  expect(done.status, JSON.stringify(done)).toBe('completed');
  expect(done.cwd).toBe(join(b.home, 'workspaces', workspace.id, 'worktrees', again));
  expect(done.nodes.show.output.split('\n')[0]).toBe('by path');
  await release();
}, 90_000);
