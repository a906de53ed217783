// The pool of prepared worktrees against a real `svc serve` killed outright (docs/decisions.md,
// "Setup cache and pool"): a worktree whose setup was still running when the server got kill -9 has
// no manifest, so it is never taken; the next start stops the setup left running, removes the
// worktree and its registration in the repository, and prepares a whole one.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { git, makeRepository } from '../helpers/git.js';
import { killAllServes, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { api, cleanupAll, isAlive, startRun, tempDir, waitFor, waitForDeath, waitForRun, writeWorkflows, type Json } from '../helpers/runs.js';

afterEach(async () => {
  await killAllServes();
  await cleanupAll();
});

const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

/** A registered repository whose `pool: 1` refill is held mid-setup (until `hold` is gone), on a spawned server. */
async function heldRefill() {
  const work = await tempDir('svc-pool-crash-');
  const home = join(work, 'home');
  const dir = join(work, 'project');
  await mkdir(dir);
  // The setup notes its pid and folder, leaves half its tree, and finishes only once `hold` is gone.
  const hold = join(work, 'hold');
  const pids = join(work, 'pids');
  writeFileSync(hold, '');
  makeRepository(dir, { 'README.md': '# crash\n', '.gitignore': 'node_modules/\n' });
  await writeWorkflows(dir, [{ name: 'read', nodes: [{ id: 'look', bash: 'cat node_modules/dep/VERSION' }] }]);
  const setup = [
    'setup: |',
    `  echo "$$ $PWD" >> ${pids}`,
    '  mkdir -p node_modules/dep && echo half > node_modules/dep/VERSION',
    `  while [ -f ${hold} ]; do sleep 0.1; done`,
    '  echo whole > node_modules/dep/VERSION',
    'pool: 1',
    '',
  ];
  writeFileSync(join(dir, '.svc', 'worktree.yaml'), setup.join('\n'));
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'workflows');
  const server = await spawnServe({ home, cwd: work });
  const registered = await api(server, 'POST', '/api/workspaces', { path: dir });
  expect(registered.status).toBe(201);
  const workspaceId = registered.body.id as string;
  await waitFor(
    () => lines(pids).length === 1,
    20_000,
    () => 'the first refill started its setup',
  );
  const [preparing] = (await poolOf(server, workspaceId)).worktrees as Json[];
  expect(preparing).toMatchObject({ state: 'preparing', prepared_at: null });
  return { work, home, dir, hold, pids, server, workspaceId, preparing: preparing!, setupPid: Number(lines(pids)[0]!.split(' ')[0]) };
}

const poolOf = async (server: ServeProcess, workspaceId: string): Promise<Json> => (await api(server, 'GET', `/api/workspaces/${workspaceId}`)).body.pool;

it('kill -9 mid-refill: the half-prepared worktree is never taken; the next start stops its setup, removes it, and fills the pool whole', async () => {
  const { work, home, dir, hold, pids, preparing, setupPid: orphan, workspaceId, ...held } = await heldRefill();
  let server = held.server;
  const pool = () => poolOf(server, workspaceId);

  expect(await server.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
  // What the kill left: the worktree with half a tree and no manifest, and its setup still running.
  expect(readFileSync(join(preparing.path, 'node_modules/dep/VERSION'), 'utf8')).toBe('half\n');
  expect(existsSync(`${preparing.path}.json`)).toBe(false);
  expect(isAlive(orphan)).toBe(true);

  server = await spawnServe({ home, cwd: work });
  await waitForDeath(orphan);
  await waitFor(
    () => !existsSync(preparing.path),
    20_000,
    () => 'the half-prepared worktree removed',
  );
  expect(git(dir, 'worktree', 'list')).not.toContain(preparing.name);
  // The new server prepares one of its own, whole, once the setup may finish.
  await waitFor(
    () => lines(pids).length === 2,
    20_000,
    () => 'the refill after the restart started its setup',
  );
  rmSync(hold);
  const ready = await waitFor(
    async () => ((await pool()).worktrees as Json[]).find((worktree) => worktree.state === 'ready'),
    20_000,
    () => 'a ready worktree in the pool',
  );
  expect(ready.name).not.toBe(preparing.name);

  const run = await waitForRun(server, await startRun(server, 'read', { message: '', workspaceId }));
  expect(run.status, JSON.stringify(run.error)).toBe('completed');
  expect(run.setup.source).toBe('pool');
  expect(run.nodes.look.output).toBe('whole');
  // The run's own worktree never ran the setup: it is the pool's, prepared before the run.
  expect(lines(pids).filter((line) => line.endsWith(run.cwd))).toEqual([]);
}, 90_000);

it('a server stopping mid-refill stops the setup and removes the worktree it was preparing', async () => {
  const { dir, server, preparing, setupPid } = await heldRefill();
  expect(await server.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  expect(isAlive(setupPid)).toBe(false);
  expect(existsSync(preparing.path)).toBe(false);
  expect(git(dir, 'worktree', 'list')).not.toContain(preparing.name);
}, 60_000);
