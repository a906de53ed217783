// The landing queue's durability against real `svc serve` processes: a server killed outright
// (kill -9) in the middle of a verification resumes the queue when it starts again, and lands the
// entry once; and several servers on one PostgreSQL database land every entry once, in order, one
// server holding the workspace's queue.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { killAllServes, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { api, cleanupAll, tempDir, waitFor, type Json } from '../helpers/runs.js';
import { git } from '../helpers/git.js';
import { queryRows, usePostgres } from '../support/postgres.js';
import { edit, enqueue, eventsOf, finishedRun, landings, queueOf, queueRepository, testsPassAt } from './fixture.js';

const postgres = usePostgres();
afterEach(async () => {
  await killAllServes();
  await cleanupAll();
});

const lines = (file: string) => {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
};

/**
 * A server with a queue whose one entry (a run changing `exports.<letter>`) is being verified: each
 * verification notes its commit in `log`, then takes long enough to be killed in.
 */
async function verifying(letter: 'b' | 'c') {
  const home = await tempDir('svc-queue-home-');
  const log = join(await tempDir('svc-queue-log-'), 'verifications');
  const server: ServeProcess = await spawnServe({ home, cwd: home });
  const value = letter === 'b' ? 2 : 3;
  const { dir, workspaceId } = await queueRepository(
    server,
    [edit(`change-${letter}`, `sed -i 's/exports.${letter} = () => ${value};/exports.${letter} = () => ${value}0;/' math.js`)],
    {
      verify: `echo "$SVC_LAND_COMMIT" >> ${log}; sleep 4; node test.js`,
    },
  );
  const runId = await finishedRun(server, workspaceId, `change-${letter}`, `Change ${letter}`);
  await enqueue(server, runId);
  await waitFor(
    () => lines(log).length === 1,
    20_000,
    () => 'the first verification started',
  );
  return { home, log, server, dir, workspaceId, runId };
}

it('kill -9 of the server mid-verification: started again, it verifies and lands the entry once', async () => {
  const { home, log, dir, workspaceId, runId, ...started } = await verifying('b');
  let server: ServeProcess = started.server;
  expect((await queueOf(server, workspaceId))[0]).toMatchObject({ state: 'verifying', attempts: 1 });
  await server.stop('SIGKILL');
  const tested = lines(log)[0]!;
  expect(git(dir, 'rev-parse', 'main')).not.toBe(tested);

  server = await spawnServe({ home, cwd: home });
  const entry = (
    await waitFor(
      async () => {
        const entries = await queueOf(server, workspaceId);
        return entries[0]?.state === 'landed' ? entries : undefined;
      },
      30_000,
      () => 'the entry landed after the restart',
    )
  )[0]!;
  expect(entry).toMatchObject({ runId, state: 'landed', attempts: 2 });
  expect(lines(log)).toHaveLength(2);
  // Built on the same tip, the commit is the same one (a merge commit's time aside): what landed is what the second verification tested.
  expect(entry.commit).toBe(lines(log)[1]);
  const landed = landings(dir);
  expect(landed).toHaveLength(1);
  expect(landed[0]!.commit).toBe(entry.commit);
  expect(git(dir, 'rev-parse', 'main')).toBe(entry.commit);
  expect(await testsPassAt(dir, 'main')).toBe(true);
  await waitFor(
    async () => (await eventsOf(server, runId)).some((e: Json) => e.type === 'queue_landed'),
    10_000,
    () => 'queue_landed',
  );
  const types = (await eventsOf(server, runId)).map((e: Json) => e.type);
  expect(types.filter((t: string) => t === 'queue_landed')).toHaveLength(1);
  expect(types.filter((t: string) => t === 'run_merged')).toHaveLength(1);
  expect(types.filter((t: string) => t === 'queue_verifying')).toHaveLength(2);
}, 90_000);

it('a restart after the target moved but before the entry said so: the entry is recorded as landed, not landed again', async () => {
  const { home, log, dir, workspaceId, ...started } = await verifying('c');
  let server: ServeProcess = started.server;
  await server.stop('SIGKILL');
  // What a server killed just after its compare-and-set leaves: the target at the tested commit, the entry still verifying.
  const tested = lines(log)[0]!;
  git(dir, 'merge', '-q', '--ff-only', tested);

  server = await spawnServe({ home, cwd: home });
  const entry = (
    await waitFor(
      async () => {
        const entries = await queueOf(server, workspaceId);
        return entries[0]?.state === 'landed' ? entries : undefined;
      },
      30_000,
      () => 'the entry recorded as landed',
    )
  )[0]!;
  expect(entry).toMatchObject({ state: 'landed', commit: tested, attempts: 1 });
  expect(lines(log)).toHaveLength(1);
  expect(landings(dir).map((l) => l.commit)).toEqual([tested]);
}, 90_000);

it('two servers on one PostgreSQL: entries queued through both land once each, in queue order, one server holding the queue', async () => {
  const url = await postgres.createDatabase();
  const cwd = await tempDir('svc-queue-cwd-');
  const [a, b] = await Promise.all(
    [0, 1].map(async () => spawnServe({ home: await tempDir('svc-queue-pg-home-'), cwd, env: { SVC_DATABASE_URL: url, SVC_RUN_LEASE_MS: '1500' } })),
  );
  const { dir, workspaceId } = await queueRepository(
    a!,
    [
      edit('change-a', "sed -i 's/exports.a = () => 1;/exports.a = () => 10;/' math.js"),
      edit('change-b', "sed -i 's/exports.b = () => 2;/exports.b = () => 20;/' math.js"),
      edit('change-c', "sed -i 's/exports.c = () => 3;/exports.c = () => 30;/' math.js"),
      edit('add-d', "sed -i '/^\\/\\/ five$/a exports.d = () => 4;' math.js"),
    ],
    { verify: 'sleep 0.5; node test.js' },
  );
  const servers = [a!, b!, a!, b!];
  const names = ['change-a', 'change-b', 'change-c', 'add-d'];
  const runs = await Promise.all(names.map((name, i) => finishedRun(servers[i]!, workspaceId, name, `Run ${name}`)));
  for (const [i, runId] of runs.entries()) await enqueue(servers[i]!, runId);
  const holders = new Set<string>();
  let last: Json[] = [];
  const entries = await waitFor(
    async () => {
      for (const row of await queryRows<{ server_id: string }>(url, 'SELECT server_id FROM landing_queue_holders')) holders.add(row.server_id);
      const all = (last = await queueOf(b!, workspaceId));
      return all.length === 4 && all.every((e: Json) => e.state === 'landed') ? all : undefined;
    },
    60_000,
    () => `every entry landed: ${JSON.stringify(last)}\n${a!.stderr()}\n${b!.stderr()}`,
  );
  expect(entries.map((e: Json) => e.runId)).toEqual(runs);
  const landed = landings(dir);
  expect(landed.map((l) => l.commit)).toEqual(entries.map((e: Json) => e.commit));
  for (const [i, landing] of landed.entries()) expect(landing.message.split(runs[i]!).length - 1).toBe(1);
  for (const runId of runs) {
    const types = (await eventsOf(a!, runId)).map((e: Json) => e.type);
    expect(types.filter((t: string) => t === 'run_merged')).toHaveLength(1);
    expect(types.filter((t: string) => t === 'queue_verifying')).toHaveLength(1);
  }
  expect(holders.size).toBe(1);
  expect(await testsPassAt(dir, 'main')).toBe(true);
}, 120_000);

it('two servers on one PostgreSQL: kill -9 of the one holding the queue mid-verification; the other takes the queue over and lands the entry once', async () => {
  const url = await postgres.createDatabase();
  const cwd = await tempDir('svc-queue-cwd-');
  const log = join(await tempDir('svc-queue-log-'), 'verifications');
  const both = await Promise.all(
    [0, 1].map(async () => spawnServe({ home: await tempDir('svc-queue-pg-home-'), cwd, env: { SVC_DATABASE_URL: url, SVC_RUN_LEASE_MS: '1500' } })),
  );
  const { dir, workspaceId } = await queueRepository(both[0]!, [edit('change-b', "sed -i 's/exports.b = () => 2;/exports.b = () => 20;/' math.js")], {
    verify: `echo "$SVC_LAND_COMMIT" >> ${log}; sleep 4; node test.js`,
  });
  const runId = await finishedRun(both[0]!, workspaceId, 'change-b', 'Change b');
  await enqueue(both[1]!, runId);
  await waitFor(
    () => lines(log).length === 1,
    20_000,
    () => 'the first verification started',
  );
  const [holder] = await queryRows<{ server_id: string }>(url, 'SELECT server_id FROM landing_queue_holders WHERE workspace_id = $1', [workspaceId]);
  const ids = await Promise.all(both.map(async (s) => (await api(s, 'GET', '/api/health')).body.concurrency.store.serverId as string));
  const held = ids.indexOf(holder!.server_id);
  expect(held).toBeGreaterThanOrEqual(0);
  await both[held]!.stop('SIGKILL');
  const other = both[1 - held]!;

  const entry = (
    await waitFor(
      async () => {
        const entries = await queueOf(other, workspaceId);
        return entries[0]?.state === 'landed' ? entries : undefined;
      },
      30_000,
      () => 'the other server landed the entry',
    )
  )[0]!;
  expect(entry).toMatchObject({ state: 'landed', attempts: 2 });
  expect(landings(dir).map((l) => l.commit)).toEqual([entry.commit]);
  expect((await queryRows<{ server_id: string }>(url, 'SELECT server_id FROM landing_queue_holders')).map((r) => r.server_id)).not.toContain(ids[held]);
  expect(await testsPassAt(dir, 'main')).toBe(true);
}, 90_000);
