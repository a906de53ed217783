/**
 * The landing queue on PostgreSQL (docs/decisions.md, "PostgreSQL store"): one row per entry, the
 * same interface as the file store's (repository.ts). A place comes from a sequence, so entries
 * entered through several servers at once each get their own; `replaceIf` is one conditional UPDATE.
 */

import { asJson, type PostgresDatabase } from '../store/postgres/index.js';
import { OPEN_STATES, type QueueEntry } from './records.js';
import type { QueueRepository } from './repository.js';

/** An entry waiting for its rework run: few at a time, read from the record (no column of its own). */
const AWAITING = "(record->>'awaitingRework')::boolean";

export function postgresQueueRepository(db: PostgresDatabase): QueueRepository {
  const entries = async (text: string, params: unknown[]) => (await db.query<{ record: QueueEntry }>(text, params)).rows.map((row) => row.record);
  return {
    async enter(entry, at) {
      const rows = await entries(
        `INSERT INTO landing_queue (run_id, workspace_id, target, position, record)
         SELECT $1, $2, $3, p, $4::jsonb || jsonb_build_object('position', p)
         FROM (SELECT coalesce($5::bigint, nextval('landing_queue_position')) AS p) AS next
         ON CONFLICT (run_id) DO NOTHING
         RETURNING record`,
        [entry.runId, entry.workspaceId, entry.target, asJson(entry), at ?? null],
      );
      return rows[0];
    },
    get: async (runId) => (await entries('SELECT record FROM landing_queue WHERE run_id = $1', [runId]))[0],
    list({ workspaceId, target, states, awaitingRework, limit }) {
      const where = ['workspace_id = $1'];
      const params: unknown[] = [workspaceId];
      if (target !== undefined) where.push(`target = $${params.push(target)}`);
      if (states) where.push(`state = ANY($${params.push(states)}::text[])`);
      if (awaitingRework) where.push(AWAITING);
      const bound = limit === undefined ? '' : ` LIMIT $${params.push(limit)}`;
      return entries(
        `SELECT record FROM landing_queue WHERE ${where.join(' AND ')} ORDER BY target COLLATE "C", position, record->>'enteredAt' COLLATE "C"${bound}`,
        params,
      );
    },
    open: async () =>
      (
        await db.query<{ workspace_id: string; target: string }>(
          `SELECT DISTINCT workspace_id, target FROM landing_queue WHERE state = ANY($1::text[]) OR ${AWAITING}`,
          [OPEN_STATES],
        )
      ).rows.map((row) => ({ workspaceId: row.workspace_id, target: row.target })),
    // jsonb equality compares values, not key order: the entry is still what the caller read.
    replaceIf: async (expected, next) =>
      ((await db.query('UPDATE landing_queue SET record = $3 WHERE run_id = $1 AND record = $2::jsonb', [expected.runId, asJson(expected), asJson(next)]))
        .rowCount ?? 0) > 0,
    remove: async (runId) => ((await db.query('DELETE FROM landing_queue WHERE run_id = $1', [runId])).rowCount ?? 0) > 0,
  };
}
