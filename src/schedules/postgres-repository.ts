/**
 * Schedule firing state on PostgreSQL (docs/decisions.md, PostgreSQL store): one row per schedule,
 * the same interface as the file store's (repository.ts). `replaceIf` is one conditional UPDATE, so
 * of several servers reserving one firing, one succeeds.
 */

import { asJson, type PostgresDatabase } from '../store/postgres/index.js';
import type { ScheduleState, ScheduleStateRepository } from './repository.js';

export function postgresScheduleRepository(db: PostgresDatabase): ScheduleStateRepository {
  return {
    get: async (id) => (await db.query<{ record: ScheduleState }>('SELECT record FROM schedule_state WHERE id = $1', [id])).rows[0]?.record,
    // Every commit is durable: `sync: false` (cheap to redo) has nothing cheaper to choose here.
    async put(state) {
      await db.query('INSERT INTO schedule_state (id, record) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record', [
        state.id,
        asJson(state),
      ]);
    },
    insertIfAbsent: async (state) =>
      ((await db.query('INSERT INTO schedule_state (id, record) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [state.id, asJson(state)])).rowCount ?? 0) > 0,
    // jsonb equality compares values, not key order: the record is still what the caller read.
    replaceIf: async (expected, next) =>
      ((await db.query('UPDATE schedule_state SET record = $3 WHERE id = $1 AND record = $2::jsonb', [expected.id, asJson(expected), asJson(next)])).rowCount ??
        0) > 0,
  };
}
