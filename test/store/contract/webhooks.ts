/** The webhook repositories' contract (src/webhooks/repository.ts), for every store. */

import { expect, it } from 'vitest';
import type { DedupeRecord, DeliveryRecord } from '../../../src/webhooks/index.js';
import { useContractStore } from './lifecycle.js';
import type { ContractStoreFactory } from './store.js';

const record = (id: string, expiresAt: number, runId = `run_${id}`, state: DedupeRecord['state'] = 'accepted'): DedupeRecord => ({
  id,
  slug: 's',
  key: id,
  bodyHash: 'h',
  runId,
  state,
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

export function webhookRepositoryContract(factory: ContractStoreFactory): void {
  const stores = useContractStore(factory);

  it('dedupe: a live record wins, an expired one is replaced; expired records are pruned and the key is free again', async () => {
    let { dedupe } = await stores.current().webhooks();
    expect(await dedupe.insertIfAbsent(record('a', 1000), 0)).toEqual({ inserted: true, record: record('a', 1000) });
    expect(await dedupe.insertIfAbsent(record('a', 5000, 'run_other'), 999)).toEqual({ inserted: false, existing: record('a', 1000) });
    expect(await dedupe.insertIfAbsent(record('a', 5000, 'run_other'), 1000)).toEqual({ inserted: true, record: record('a', 5000, 'run_other') });
    await dedupe.insertIfAbsent(record('b', 2000), 0);
    await dedupe.insertIfAbsent(record('c', 2500), 0);
    expect(await dedupe.pruneExpired(3000)).toBe(2);
    expect(await dedupe.pruneExpired(3000)).toBe(0);

    ({ dedupe } = await (await stores.reopen()).webhooks());
    expect(await dedupe.insertIfAbsent(record('a', 9000, 'run_third'), 4000)).toEqual({ inserted: false, existing: record('a', 5000, 'run_other') });
    expect(await dedupe.insertIfAbsent(record('b', 9000, 'run_b2'), 4000)).toMatchObject({ inserted: true });
  });

  it('dedupe: identical deliveries at once insert one record', async () => {
    const { dedupe } = await stores.current().webhooks();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => dedupe.insertIfAbsent(record('same', 10_000, `run_${i}`), 0)));
    const winners = results.filter((r) => r.inserted);
    expect(winners).toHaveLength(1);
    const runId = winners[0]!.inserted ? winners[0]!.record.runId : '';
    for (const r of results) expect(r.inserted ? r.record.runId : r.existing.runId).toBe(runId);
  });

  it('dedupe: replace marks a reservation accepted; release removes only the record of the run given', async () => {
    const { dedupe } = await stores.current().webhooks();
    await dedupe.insertIfAbsent(record('a', 1000, 'run_1', 'reserved'), 0);
    await dedupe.replace(record('a', 1000, 'run_1', 'accepted'));
    expect(await dedupe.insertIfAbsent(record('a', 1000, 'run_2'), 0)).toEqual({ inserted: false, existing: record('a', 1000, 'run_1', 'accepted') });
    await dedupe.release(record('a', 1000, 'run_2'));
    expect(await dedupe.insertIfAbsent(record('a', 1000, 'run_2'), 0)).toMatchObject({ inserted: false });
    await dedupe.release(record('a', 1000, 'run_1'));
    expect(await dedupe.insertIfAbsent(record('a', 1000, 'run_2'), 0)).toEqual({ inserted: true, record: record('a', 1000, 'run_2') });
    await dedupe.replace(record('fresh', 1000, 'run_9'));
    expect(await dedupe.insertIfAbsent(record('fresh', 1000, 'run_10'), 0)).toMatchObject({ inserted: false, existing: { runId: 'run_9' } });
  });

  it('the delivery history lists the newest N, newest first, filtered and limited, across a reopen', async () => {
    const repos = await stores.current().webhooks({ history: 3 });
    for (let n = 1; n <= 10; n++) await repos.deliveries.append(delivery(n));
    expect((await repos.deliveries.list()).map((d) => d.key)).toEqual(['k10', 'k9', 'k8']);
    expect((await repos.deliveries.list({ slug: 'odd' })).map((d) => d.key)).toEqual(['k9']);
    expect((await repos.deliveries.list({ outcome: 'duplicate' })).map((d) => d.key)).toEqual(['k9']);
    expect((await repos.deliveries.list({ slug: 'even', outcome: 'duplicate' })).map((d) => d.key)).toEqual([]);
    expect(await repos.deliveries.list({ limit: 1 })).toEqual([delivery(10)]);

    const reopened = await (await stores.reopen()).webhooks({ history: 3 });
    expect((await reopened.deliveries.list()).map((d) => d.key)).toEqual(['k10', 'k9', 'k8']);
    await reopened.deliveries.append(delivery(11));
    expect((await reopened.deliveries.list({ limit: 2 })).map((d) => d.key)).toEqual(['k11', 'k10']);
  });
}
