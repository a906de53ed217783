/**
 * Schedule firing state on PostgreSQL (docs/decisions.md, "PostgreSQL store"): one row per schedule,
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

/**
 * `upSince` of servers sharing a database (service.ts; docs/scaling.md): a due time is missed only
 * when no server was up to fire it. Each server keeps in its `svc_servers` row (whose lease the
 * run claims' heartbeat renews) `record.schedulesSince`: the earliest of its own start and the
 * spans of the servers whose lease holds (a server that stopped or died counts until its lease
 * expires). A server starting while another is up thereby continues that one's span, and passes it
 * on when that one stops. One statement: it reads the span and records it on this server's row.
 * The times are the schedule services' clocks, as ISO strings (they order as time in the C collation).
 */
export function postgresScheduleUptime(db: PostgresDatabase, serverId: string): (startedAt: number) => Promise<number> {
  return async (startedAt) => {
    const { rows } = await db.query<{ since: string }>(
      `WITH span AS (
         SELECT LEAST($2::text COLLATE "C", min((record->>'schedulesSince') COLLATE "C")) AS since
         FROM svc_servers WHERE id = $1 OR lease_until >= now()
       ), recorded AS (
         UPDATE svc_servers SET record = record || jsonb_build_object('schedulesSince', (SELECT since FROM span)) WHERE id = $1
       )
       SELECT since FROM span`,
      [serverId, new Date(startedAt).toISOString()],
    );
    return Date.parse(rows[0]!.since);
  };
}
