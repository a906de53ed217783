// The webhook repositories on the real file store: insert-if-absent on (slug, key) with expiry,
// pruning of expired records, and a delivery history that stays bounded across reopening.
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/shared/logger.js';
import { openFileStore, type FileStore } from '../../src/store/index.js';
import { openWebhookRepositories, type DedupeRecord, type DeliveryRecord } from '../../src/webhooks/index.js';
import { makeHome } from '../helpers/server.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function store(home?: string): Promise<{ store: FileStore; home: string }> {
  const dir = home ?? (await makeHome());
  if (!home) cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const opened = await openFileStore({ home: dir, logger: createLogger({ level: 'error' }), lock: 'cli' });
  return { store: opened, home: dir };
}

const record = (id: string, expiresAt: number, runId = `run_${id}`): DedupeRecord => ({
  id,
  slug: 's',
  key: id,
  bodyHash: 'h',
  runId,
  state: 'accepted',
  firstReceivedAt: new Date(0).toISOString(),
  expiresAt,
});

const delivery = (n: number): DeliveryRecord => ({
  id: `dlv_${String(n).padStart(9, '0')}`,
  slug: n % 2 ? 'odd' : 'even',
  workflow: 'w',
  outcome: n % 3 ? 'accepted' : 'duplicate',
  status: n % 3 ? 202 : 200,
  event: 'push',
  key: `k${n}`,
  runId: null,
  receivedAt: new Date(n * 1000).toISOString(),
});

describe('webhook repositories', () => {
  it('insert-if-absent: a live record wins, an expired one is replaced; expired records are pruned from disk', async () => {
    const { store: s, home } = await store();
    cleanup.push(() => s.close());
    const { dedupe } = await openWebhookRepositories(s);
    expect(await dedupe.insertIfAbsent(record('a', 1000), 0)).toMatchObject({ inserted: true });
    expect(await dedupe.insertIfAbsent(record('a', 5000, 'run_other'), 999)).toMatchObject({ inserted: false, existing: { runId: 'run_a' } });
    expect(await dedupe.insertIfAbsent(record('a', 5000, 'run_other'), 1000)).toMatchObject({ inserted: true, record: { runId: 'run_other' } });
    await dedupe.insertIfAbsent(record('b', 2000), 0);
    expect(await dedupe.pruneExpired(3000)).toBe(1);
    expect((await readdir(join(home, 'data', 'webhook-dedupe'))).sort()).toEqual(['a']);
    expect(JSON.parse(await readFile(join(home, 'data', 'webhook-dedupe', 'a', 'record.json'), 'utf8'))).toMatchObject({ runId: 'run_other' });
  });

  it('the delivery history keeps the newest N, filtered, across reopening, with at most 2N lines on disk', async () => {
    const first = await store();
    const repos = await openWebhookRepositories(first.store, { history: 3 });
    for (let n = 1; n <= 10; n++) await repos.deliveries.append(delivery(n));
    expect((await repos.deliveries.list()).map((d) => d.key)).toEqual(['k10', 'k9', 'k8']);
    expect((await repos.deliveries.list({ slug: 'odd' })).map((d) => d.key)).toEqual(['k9']);
    await first.store.close();
    const second = await store(first.home);
    cleanup.push(() => second.store.close());
    const reopened = await openWebhookRepositories(second.store, { history: 3 });
    expect((await reopened.deliveries.list()).map((d) => d.key)).toEqual(['k10', 'k9', 'k8']);
    await reopened.deliveries.append(delivery(11));
    expect((await reopened.deliveries.list({ limit: 2 })).map((d) => d.key)).toEqual(['k11', 'k10']);
    await second.store.flush();
    let lines = 0;
    const dir = join(first.home, 'data', 'webhook-deliveries');
    for (const file of await readdir(dir)) lines += (await readFile(join(dir, file), 'utf8')).split('\n').filter(Boolean).length;
    expect(lines).toBeLessThanOrEqual(6);
  });
});
