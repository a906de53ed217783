/**
 * Runs and run events on PostgreSQL (docs/decisions.md, "PostgreSQL store"): the RunRepository of
 * run-repository.ts answered by indexed queries. Every event takes its stream position from one
 * database sequence, so positions are one order across servers; a reader only returns events of
 * transactions older than every one still open, so an event whose position was taken before
 * another's but committed after it is never skipped by a reader that has moved past it.
 */

import { DomainError } from '../../shared/errors.js';
import { asJson, likePrefix, type PostgresDatabase } from '../../store/postgres/index.js';
import type { RunEvent } from '../model/events.js';
import type { RunEventFilter, RunRepository } from './run-repository.js';
import { inStreamSql } from '../../events/index.js';
import { pickRun, runIdPrefix } from './run-queries.js';
import type { RunRecord, RunStatus } from '../model/types.js';

/** `serverId`: the server whose engine writes through this repository, recorded on the runs it starts executing. */
export function postgresRunRepository(db: PostgresDatabase, serverId: string | null = null): RunRepository {
  const one = async (sql: string, params: unknown[]) => (await db.query<{ record: RunRecord }>(sql, params)).rows[0]?.record;
  const get = (id: string) => one('SELECT record FROM runs WHERE id = $1', [id]);
  const records = async <T>(sql: string, params: unknown[]) => (await db.query<{ record: T }>(sql, params)).rows.map((row) => row.record);

  return {
    async save(run, _options, expected) {
      if (expected === 'absent') {
        const inserted = await db.query('INSERT INTO runs (id, record, server_id) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING', [
          run.id,
          asJson(run),
          serverId,
        ]);
        return (inserted.rowCount ?? 0) > 0;
      }
      // Every commit is durable: `sync: false` (progress cheap to redo) has nothing cheaper to choose here.
      // A run this server creates, makes pending again or starts running is held by it: no other
      // server claims it before its events are written; the engine then executes it or lets it go.
      const holder = `CASE
             WHEN $2::jsonb->>'status' IN ('pending', 'running') AND runs.status <> $2::jsonb->>'status' THEN $3
             ELSE runs.server_id END`;
      // A change expected of a stored state is an update only: a run another server deleted meanwhile stays deleted.
      const { rowCount } =
        expected === undefined
          ? await db.query(
              `INSERT INTO runs (id, record, server_id) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record, server_id = ${holder}`,
              [run.id, asJson(run), serverId],
            )
          : await db.query(`UPDATE runs SET record = $2, server_id = ${holder} WHERE id = $1 AND status = $4`, [run.id, asJson(run), serverId, expected]);
      return (rowCount ?? 0) > 0;
    },
    get,
    async resolve(idOrPrefix) {
      const exact = await get(idOrPrefix);
      if (exact) return exact;
      const prefix = runIdPrefix(idOrPrefix);
      const ids =
        prefix === undefined ? [] : (await db.query<{ id: string }>("SELECT id FROM runs WHERE id LIKE $1 ESCAPE '\\' ORDER BY id", [likePrefix(prefix)])).rows;
      const { id } = pickRun(idOrPrefix, undefined, ids);
      const run = await get(id);
      if (!run) throw new DomainError('run_not_found', `No run '${idOrPrefix}'.`); // deleted in between
      return run;
    },
    byWorker: (platformId) => one('SELECT record FROM runs WHERE platform_id = $1 ORDER BY id LIMIT 1', [platformId]),
    resumable: (workflow, conversationId) =>
      one("SELECT record FROM runs WHERE resume_pending AND status = 'failed' AND workflow = $1 AND conversation_id = $2 ORDER BY id DESC LIMIT 1", [
        workflow,
        conversationId,
      ]),
    withStatus: (statuses) => records<RunRecord>('SELECT record FROM runs WHERE status = ANY($1::text[]) ORDER BY created_at, id', [[...statuses]]),
    // ISO strings in UTC compare as text in time order; `runs_wake_at` holds only runs with one.
    dueWakeUps: (statuses, at) =>
      records<RunRecord>('SELECT record FROM runs WHERE wake_at IS NOT NULL AND wake_at <= $2 AND status = ANY($1::text[]) ORDER BY wake_at, id', [
        [...statuses],
        at,
      ]),
    nextWakeUp: async (statuses) =>
      (
        await db.query<{ wake_at: string }>('SELECT wake_at FROM runs WHERE wake_at IS NOT NULL AND status = ANY($1::text[]) ORDER BY wake_at LIMIT 1', [
          [...statuses],
        ])
      ).rows[0]?.wake_at,
    list(filter) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (filter.workflow) where.push(`workflow = $${params.push(filter.workflow)}`);
      if (filter.conversationId) where.push(`conversation_id = $${params.push(filter.conversationId)}`);
      if (filter.workspaceId) where.push(`workspace_id = $${params.push(filter.workspaceId)}`);
      // Not a column of its own: asked only for one run's page, where the other filters are rare.
      if (filter.fromRunId) where.push(`record->>'fromRunId' = $${params.push(filter.fromRunId)}`);
      // The same: asked from a run's detail ("runs of this version"), usually with a workflow.
      if (filter.definitionHash) where.push(`record->>'definitionHash' = $${params.push(filter.definitionHash)}`);
      // ISO strings in UTC compare as text in time order.
      if (filter.sinceMs !== undefined) where.push(`created_at >= $${params.push(new Date(filter.sinceMs).toISOString())}`);
      if (filter.untilMs !== undefined) where.push(`created_at <= $${params.push(new Date(filter.untilMs).toISOString())}`);
      const statuses = filter.status?.length ? filter.status : undefined;
      const pageWhere = statuses ? [...where, `status = ANY($${params.length + 1}::text[])`] : where;
      const sqlWhere = (parts: string[]) => (parts.length > 0 ? `WHERE ${parts.join(' AND ')}` : '');
      // The counts and the page from one snapshot, so the total always agrees with the counts.
      return db.transaction(async (client) => {
        await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        const counted = await client.query<{ status: RunStatus; n: number }>(
          `SELECT status, count(*)::int AS n FROM runs ${sqlWhere(where)} GROUP BY status`,
          params,
        );
        const pageParams = statuses ? [...params, statuses] : [...params];
        const page = await client.query<{ record: RunRecord }>(
          `SELECT record FROM runs ${sqlWhere(pageWhere)} ORDER BY id DESC LIMIT $${pageParams.length + 1} OFFSET $${pageParams.length + 2}`,
          [...pageParams, filter.limit ?? 50, filter.offset ?? 0],
        );
        const counts: Partial<Record<RunStatus, number>> = {};
        for (const { status, n } of counted.rows) counts[status] = n;
        const total = counted.rows.filter((row) => !statuses || statuses.includes(row.status)).reduce((sum, row) => sum + row.n, 0);
        return { runs: page.rows.map((row) => row.record), total, counts };
      });
    },
    // Sorted here, in code-unit order, whatever the database's collation.
    workflows: async () => (await db.query<{ workflow: string }>('SELECT DISTINCT workflow FROM runs')).rows.map((row) => row.workflow).sort(),
    // The run first, on the state it was read in: a run another server changed meanwhile (resumed) keeps its events.
    delete: (id, expected) =>
      db.transaction(async (client) => {
        const deleted = await client.query('DELETE FROM runs WHERE id = $1 AND ($2::text IS NULL OR status = $2)', [id, expected ?? null]);
        if ((deleted.rowCount ?? 0) === 0) return false;
        await client.query('DELETE FROM run_events WHERE run_id = $1', [id]);
        await client.query('DELETE FROM run_summaries WHERE run_id = $1', [id]);
        return true;
      }),

    // One statement: of several servers whose timers fire together, only one clears the wake-up.
    async claimAutoResume(runId, at) {
      const { rowCount } = await db.query(
        `UPDATE runs SET record = record || jsonb_build_object('autoResumeAt', NULL, 'wakeAt', NULL, 'updatedAt', $3::text)
         WHERE id = $1 AND status = 'failed' AND record->>'autoResumeAt' = $2`,
        [runId, at, new Date().toISOString()],
      );
      return (rowCount ?? 0) > 0;
    },

    async appendEvent(event) {
      const { rows } = await db.inOrder(() =>
        db.query<{ record: RunEvent }>(
          `INSERT INTO run_events (position, run_id, seq, record)
         SELECT p, $1, $2, $3::jsonb || jsonb_build_object('pos', p) FROM (SELECT nextval('svc_event_position') AS p) AS next
         RETURNING record`,
          [event.runId, event.seq, asJson(event)],
        ),
      );
      return rows[0]!.record;
    },
    events: (runId) => records<RunEvent>('SELECT record FROM run_events WHERE run_id = $1 ORDER BY seq', [runId]),
    lastSeq: async (runId) =>
      (await db.query<{ seq: number }>('SELECT coalesce(max(seq), 0)::int AS seq FROM run_events WHERE run_id = $1', [runId])).rows[0]!.seq,
    eventsAfter(after, filter: RunEventFilter) {
      const where = ['position > $1', 'tx < pg_snapshot_xmin(pg_current_snapshot())'];
      const params: unknown[] = [after];
      where.push(...inStreamSql(filter, { id: 'run_id', conversationId: 'conversation_id', platformId: 'platform_id' }, params));
      return records<RunEvent>(`SELECT record FROM run_events WHERE ${where.join(' AND ')} ORDER BY position`, params);
    },
  };
}
