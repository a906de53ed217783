// The PostgreSQL store's migrations: applied at open under an advisory lock, so servers starting
// together on one empty database apply each migration exactly once; a reopen applies nothing.
import { afterEach, expect, it } from 'vitest';
import { silentLogger } from '../../src/shared/logger.js';
import { MIGRATIONS, openPostgres, type Migration, type PostgresDatabase } from '../../src/store/postgres/index.js';
import { postgresRunSummaryIndex } from '../../src/runs/storage/postgres-run-summaries.js';
import { queryRows, usePostgres } from '../support/postgres.js';

const postgres = usePostgres();
const opened: PostgresDatabase[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.close()));
});

async function open(url: string, migrations?: readonly Migration[]): Promise<PostgresDatabase> {
  const db = await openPostgres({ url, logger: silentLogger, migrations });
  opened.push(db);
  return db;
}

const appliedVersions = async (url: string) =>
  (await queryRows<{ version: number }>(url, 'SELECT version FROM svc_schema_migrations ORDER BY version')).map((row) => row.version);

it('two servers starting together on an empty database apply the schema once between them', async () => {
  const url = await postgres.createDatabase();
  // A slow first step widens the window in which an unlocked second migrator would start too.
  const slow: Migration[] = [
    { version: 1, name: 'slow', sql: 'SELECT pg_sleep(0.5); CREATE TABLE counted (n int); INSERT INTO counted VALUES (1);' },
    ...MIGRATIONS.map((m) => ({ ...m, version: m.version + 1 })),
  ];
  const [a, b] = await Promise.all([open(url, slow), open(url, slow)]);

  const all = slow.map((m) => m.version);
  expect([...a.migrations.applied, ...b.migrations.applied].sort((x, y) => x - y)).toEqual(all);
  // One of them did all the work; the other waited for the lock and found nothing left.
  expect([a.migrations.applied.length, b.migrations.applied.length].sort()).toEqual([0, all.length]);
  expect(a.migrations.version).toBe(all.at(-1));
  expect(b.migrations.version).toBe(all.at(-1));
  expect(await appliedVersions(url)).toEqual(all);
  const { rows } = await a.query<{ n: number }>('SELECT count(*)::int AS n FROM counted');
  expect(rows[0]!.n).toBe(1);
});

it('applies the real schema at open, nothing on a reopen, and answers a health check', async () => {
  const url = await postgres.createDatabase();
  const first = await open(url);
  expect(first.migrations.applied).toEqual(MIGRATIONS.map((m) => m.version));
  await first.check();
  const second = await open(url);
  expect(second.migrations.applied).toEqual([]);
  expect(second.migrations.version).toBe(MIGRATIONS.at(-1)!.version);
  expect(await appliedVersions(url)).toEqual(MIGRATIONS.map((m) => m.version));
});

it('a failed migration is rolled back whole, and the next start applies it', async () => {
  const url = await postgres.createDatabase();
  const broken: Migration[] = [{ version: 1, name: 'half', sql: 'CREATE TABLE half (n int); SELECT no_such_function();' }];
  await expect(open(url, broken)).rejects.toThrow(/Migration 1 \(half\) failed/);
  const fixed: Migration[] = [{ version: 1, name: 'half', sql: 'CREATE TABLE half (n int);' }];
  const db = await open(url, fixed);
  expect(db.migrations.applied).toEqual([1]);
});

it('refuses a database whose schema is newer than this svc knows', async () => {
  const url = await postgres.createDatabase();
  await open(url, [...MIGRATIONS, { version: 999, name: 'from the future', sql: 'SELECT 1' }]);
  await expect(open(url)).rejects.toThrow(/version 999, newer than this svc knows/);
});

it('a wrong database URL fails at open with the driver’s reason', async () => {
  const url = `${postgres.server().url('no_such_database')}`;
  await expect(open(url)).rejects.toThrow(/no_such_database/);
});

it("migration 8 gives the run summaries written before it their run's workspace, so a node's memory history on a workspace keeps them", async () => {
  const url = await postgres.createDatabase();
  const old = await open(
    url,
    MIGRATIONS.filter((m) => m.version <= 7),
  );
  const finishedAt = '2026-01-01T00:00:05.000Z';
  const summary = (runId: string) => ({
    runId,
    workflow: 'build',
    status: 'completed',
    finishedAt,
    durationMs: 5000,
    costUsd: null,
    nodes: [{ id: 'make', durationMs: 4000, costUsd: null, peakRssBytes: runId === 'run_a' ? 300 : 100 }],
  });
  // As an svc at version 7 wrote them: the run's record says its workspace, the summary does not.
  for (const [runId, workspaceId] of [
    ['run_a', 'ws_1'],
    ['run_b', null],
  ] as const) {
    await old.query('INSERT INTO runs (id, record) VALUES ($1, $2)', [runId, JSON.stringify({ id: runId, workflow: 'build', workspaceId })]);
    await old.query('INSERT INTO run_summaries (run_id, workflow, finished_at, record) VALUES ($1, $2, $3, $4)', [
      runId,
      'build',
      finishedAt,
      JSON.stringify(summary(runId)),
    ]);
  }
  await old.close();
  opened.splice(opened.indexOf(old), 1);

  const db = await open(url);
  expect(db.migrations.applied).toEqual(MIGRATIONS.filter((m) => m.version > 7).map((m) => m.version));
  const summaries = postgresRunSummaryIndex(db);
  const history = (workspaceId: string | null) => summaries.nodePeakHistory({ workflow: 'build', workspaceId, nodeId: 'make', runs: 50 });
  expect(await history('ws_1')).toEqual([300]);
  expect(await history(null)).toEqual([100]);
  expect((await summaries.recent('build', { limit: 10 })).find((s) => s.runId === 'run_a')?.workspaceId).toBe('ws_1');
});
