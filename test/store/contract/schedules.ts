/** The schedule state repository's contract (src/schedules/repository.ts), for every store. */

import { expect, it } from 'vitest';
import type { ScheduleState } from '../../../src/schedules/index.js';
import { useContractStore } from './lifecycle.js';
import type { ContractStoreFactory } from './store.js';

const state = (id: string, fields: Partial<ScheduleState> = {}): ScheduleState => ({
  id,
  workflow: 'nightly',
  lastDueAt: '2026-01-01T00:00:00.000Z',
  pendingRunId: null,
  lastRunId: null,
  ...fields,
});

export function scheduleRepositoryContract(factory: ContractStoreFactory): void {
  const stores = useContractStore(factory);

  it('keeps one state per schedule, replaced by each put, synced or not, across a reopen', async () => {
    let repository = await stores.current().schedules();
    expect(await repository.get('a')).toBeUndefined();
    await repository.put(state('a'));
    await repository.put(state('b', { workflow: 'weekly' }));
    await repository.put(state('a', { pendingRunId: 'run_1' }));
    await repository.put(state('a', { pendingRunId: null, lastRunId: 'run_1', lastDueAt: '2026-01-02T00:00:00.000Z' }), { sync: false });
    expect(await repository.get('a')).toEqual(state('a', { lastRunId: 'run_1', lastDueAt: '2026-01-02T00:00:00.000Z' }));

    repository = await (await stores.reopen()).schedules();
    expect(await repository.get('a')).toEqual(state('a', { lastRunId: 'run_1', lastDueAt: '2026-01-02T00:00:00.000Z' }));
    expect(await repository.get('b')).toEqual(state('b', { workflow: 'weekly' }));
  });

  it('inserts a first state once, and replaces a state only while it is still the one read: one of concurrent reservations wins', async () => {
    const repository = await stores.current().schedules();
    expect(await repository.insertIfAbsent(state('a'))).toBe(true);
    expect(await repository.insertIfAbsent(state('a', { workflow: 'other' }))).toBe(false);
    const read = (await repository.get('a'))!;
    expect(read).toEqual(state('a'));

    const reservations = await Promise.all(
      Array.from({ length: 10 }, (_, i) => repository.replaceIf(read, state('a', { lastDueAt: '2026-01-01T01:00:00.000Z', pendingRunId: `run_${i}` }))),
    );
    expect(reservations.filter(Boolean)).toHaveLength(1);
    const winner = `run_${reservations.indexOf(true)}`;
    expect(await repository.get('a')).toEqual(state('a', { lastDueAt: '2026-01-01T01:00:00.000Z', pendingRunId: winner }));
    // A stale read no longer matches; a fresh one does.
    expect(await repository.replaceIf(read, state('a', { lastRunId: 'run_x' }))).toBe(false);
    const fresh = (await repository.get('a'))!;
    expect(await repository.replaceIf(fresh, { ...fresh, pendingRunId: null, lastRunId: winner })).toBe(true);
    expect(await repository.replaceIf(state('missing'), state('missing', { lastRunId: 'run_y' }))).toBe(false);
    expect(await repository.get('missing')).toBeUndefined();
  });
}
