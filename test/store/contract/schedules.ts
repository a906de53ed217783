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
}
