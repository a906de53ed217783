/**
 * Where schedules keep their firing state (docs/decisions.md, "Schedules"), behind an async
 * repository so a database can take the file store's place: one record per schedule.
 */

import { isDeepStrictEqual } from 'node:util';
import type { Store } from '../store/index.js';

export interface ScheduleState {
  /** sha256 of the workflow file, the schedule's index, cron and zone: a changed schedule starts afresh. */
  readonly id: string;
  readonly workflow: string;
  /** The due time last handled (fired, skipped, or missed while down), ISO. */
  readonly lastDueAt: string;
  /** A firing recorded (durably) before its run was created: started again if a crash lost the run. */
  readonly pendingRunId: string | null;
  readonly lastRunId: string | null;
}

export interface ScheduleStateRepository {
  get(id: string): Promise<ScheduleState | undefined>;
  /** `sync: false` for what is cheap to redo; a firing's reservation is always synced. */
  put(state: ScheduleState, options?: { sync?: boolean }): Promise<void>;
  /** Stores `state` unless one of its id exists; resolves to whether it did. */
  insertIfAbsent(state: ScheduleState): Promise<boolean>;
  /**
   * Replaces the state only while it is still `expected` (every field equal); resolves to whether
   * it did. Servers sharing a database reserve a firing this way, so only one of them fires it, and
   * record a skipped or missed due time this way, so it never undoes another one's firing.
   */
  replaceIf(expected: ScheduleState, next: ScheduleState, options?: { sync?: boolean }): Promise<boolean>;
}

export const SCHEDULE_STATE_COLLECTION = 'schedule-state';

export async function openScheduleRepository(store: Store): Promise<ScheduleStateRepository> {
  const collection = await store.collection<ScheduleState>(SCHEDULE_STATE_COLLECTION, 'per-record');
  return {
    get: async (id) => collection.get(id),
    put: (state, options) => collection.put(state, options),
    // Checked and set in one synchronous step: one process, one writer (the store's lock).
    async insertIfAbsent(state) {
      if (collection.get(state.id)) return false;
      await collection.put(state);
      return true;
    },
    async replaceIf(expected, next, options) {
      if (!isDeepStrictEqual(collection.get(expected.id), expected)) return false;
      await collection.put(next, options);
      return true;
    },
  };
}
