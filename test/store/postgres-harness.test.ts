// The PostgreSQL test harness itself (test/support/postgres.ts): a real server in a temp dir, an
// empty database of its own per call, and nothing left behind after stop().
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { expect, it } from 'vitest';
import { startPostgres } from '../support/postgres.js';

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

it('starts a throwaway server, hands out separate empty databases, and removes everything on stop', async () => {
  const server = await startPostgres();
  try {
    expect(readdirSync(server.dir)).toEqual(expect.arrayContaining(['data', 'server.log']));
    const first = await server.createDatabase();
    const second = await server.createDatabase();
    expect(first).not.toBe(second);

    await query(first, 'CREATE TABLE t (n int); INSERT INTO t VALUES (1)');
    const [info] = await query<{ database: string; fsync: string; version: string }>(
      first,
      "SELECT current_database() AS database, current_setting('fsync') AS fsync, version()",
    );
    expect(first.endsWith(`/${info!.database}`)).toBe(true);
    expect(info!.fsync).toBe('off');
    expect(info!.version).toMatch(/^PostgreSQL \d+/);
    expect(await query(second, "SELECT 1 FROM pg_tables WHERE tablename = 't'")).toEqual([]);
  } finally {
    server.stop();
  }
  expect(existsSync(server.dir)).toBe(false);
  const late = new pg.Client({ connectionString: server.url(), connectionTimeoutMillis: 2000 });
  await expect(late.connect()).rejects.toThrow();
}, 120_000);

it('a cluster left by a test process that was killed outright is stopped and removed by the next start', async () => {
  const left = await startPostgres();
  // As if its process had died by SIGKILL: the owner named in the dir is gone, no exit handler ran.
  const dead = spawnSync('true').pid!;
  writeFileSync(join(left.dir, 'owner.pid'), String(dead));
  const postmaster = Number(readFileSync(join(left.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  expect(isRunning(postmaster)).toBe(true);
  const next = await startPostgres();
  try {
    expect(existsSync(left.dir)).toBe(false);
    // pg_ctl's wait ends when the server removes its pid file, a moment before the process is gone.
    await expect.poll(() => isRunning(postmaster), { timeout: 5000 }).toBe(false);
    expect(existsSync(next.dir)).toBe(true);
  } finally {
    next.stop();
    left.stop();
  }
}, 120_000);
