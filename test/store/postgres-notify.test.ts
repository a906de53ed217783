// LISTEN/NOTIFY between servers on one database (src/store/postgres/notifier.ts): a notification
// reaches every listener, this process's too; a dropped listening connection is replaced, listens
// again, and says so, so its owner can catch up from the tables.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { silentLogger } from '../../src/shared/logger.js';
import { openNotifier, openPostgres, type Notifier, type PostgresDatabase } from '../../src/store/postgres/index.js';
import { usePostgres } from '../support/postgres.js';

const postgres = usePostgres();
let url: string;
let db: PostgresDatabase;
const opened: Notifier[] = [];
beforeEach(async () => {
  url = await postgres.createDatabase();
  db = await openPostgres({ url, logger: silentLogger });
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((n) => n.close()));
  await db.close();
});

async function notifier(): Promise<Notifier> {
  const notifier = await openNotifier({ url, logger: silentLogger, send: (text, params) => db.query(text, params), retryMs: 20 });
  opened.push(notifier);
  return notifier;
}

it('a notification reaches the listeners of its channel on every server, and no one after they stop listening', async () => {
  const [a, b] = await Promise.all([notifier(), notifier()]);
  const seen: string[] = [];
  const stopA = await a.listen('run_cancel', (payload) => seen.push(`a:${payload}`));
  await b.listen('run_cancel', (payload) => seen.push(`b:${payload}`));
  await b.listen('run_events', (payload) => seen.push(`b-events:${payload}`));

  await a.notify('run_cancel', 'run_1');
  await expect.poll(() => [...seen].sort()).toEqual(['a:run_1', 'b:run_1']);
  await stopA();
  await b.notify('run_events', '42');
  await b.notify('run_cancel', 'run_2');
  await a.listen('run_events', (payload) => seen.push(`a-events:${payload}`));
  await b.notify('run_events', 'end');
  await expect.poll(() => seen.filter((s) => s.endsWith(':end')).length).toBe(2);
  expect(seen.slice(2).sort()).toEqual(['a-events:end', 'b-events:42', 'b-events:end', 'b:run_2']);
  await expect(a.notify('Bad Name', 'x')).rejects.toThrow(/Invalid channel/);
});

it('a listening connection the database drops is replaced: it listens again and reports the reconnection', async () => {
  const listener = await notifier();
  const seen: string[] = [];
  let reconnections = 0;
  await listener.listen('run_cancel', (payload) => seen.push(payload));
  listener.onReconnect(() => reconnections++);

  await db.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'svc-listen' AND datname = current_database()");
  await expect.poll(() => reconnections, { timeout: 10_000 }).toBe(1);
  await listener.notify('run_cancel', 'after');
  await expect.poll(() => seen).toEqual(['after']);
});
