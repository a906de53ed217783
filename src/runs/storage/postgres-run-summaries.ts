/**
 * The benchmarks' run summaries on PostgreSQL (docs/decisions.md, "Benchmarks" and "PostgreSQL
 * store"): a table kept by the lifecycle's transitions, as the file store's in-memory index is, so
 * a query reads at most `limit` rows of one workflow by an index, however many runs exist.
 */

import { asJson, type PostgresDatabase } from '../../store/postgres/index.js';
import { nodePeaks, summarizeRun, type RunSummary, type RunSummaryIndex, type VersionRuns } from './run-summaries.js';

export function postgresRunSummaryIndex(db: PostgresDatabase): RunSummaryIndex {
  const remove = async (runId: string) => void (await db.query('DELETE FROM run_summaries WHERE run_id = $1', [runId]));
  return {
    async update(run) {
      const summary = summarizeRun(run);
      if (!summary) return remove(run.id);
      await db.query(
        `INSERT INTO run_summaries (run_id, workflow, finished_at, record) VALUES ($1, $2, $3, $4)
         ON CONFLICT (run_id) DO UPDATE SET workflow = EXCLUDED.workflow, finished_at = EXCLUDED.finished_at, record = EXCLUDED.record`,
        [summary.runId, summary.workflow, summary.finishedAt, asJson(summary)],
      );
    },
    remove,
    async recent(workflow, { sinceMs, limit }) {
      // ISO strings in UTC compare as text in time order.
      const since = sinceMs === undefined ? null : new Date(sinceMs).toISOString();
      const { rows } = await db.query<{ record: RunSummary }>(
        `SELECT record FROM run_summaries WHERE workflow = $1 AND ($2::text IS NULL OR finished_at >= $2)
         ORDER BY finished_at DESC, run_id DESC LIMIT $3`,
        [workflow, since, limit],
      );
      return rows.map((row) => row.record);
    },
    async nodePeakHistory({ workflow, workspaceId, nodeId, runs }) {
      // The newest runs by the history index (migration 8), then the node's peak in each, in SQL: a
      // summary's other nodes never leave the database.
      const { rows } = await db.query<{ peak: number }>(
        `WITH recent AS (
           SELECT run_id, finished_at, record FROM run_summaries
           WHERE workflow = $1 AND workspace_id = $2
           ORDER BY finished_at DESC, run_id DESC LIMIT $4)
         SELECT (node->>'peakRssBytes')::float8 AS peak
         FROM recent CROSS JOIN LATERAL jsonb_array_elements(recent.record->'nodes') AS node
         WHERE node->>'id' = $3 AND jsonb_typeof(node->'peakRssBytes') = 'number'
         ORDER BY recent.finished_at DESC, recent.run_id DESC`,
        [workflow, workspaceId ?? '', nodeId, runs],
      );
      return rows.map((row) => row.peak);
    },
    async versions(workflow, { sinceMs, limit }) {
      const since = sinceMs === undefined ? null : new Date(sinceMs).toISOString();
      // The runs `recent` answers, grouped; times as text in code-unit order ("C"), as the file store compares them.
      const { rows } = await db.query<{ hash: string; first_run_at: string; durations: number[]; usd: number; nodes: Array<RunSummary['nodes']> }>(
        `WITH recent AS (
           SELECT record->>'definitionHash' AS hash, record FROM run_summaries
           WHERE workflow = $1 AND ($2::text IS NULL OR finished_at >= $2)
           ORDER BY finished_at DESC, run_id DESC LIMIT $3)
         SELECT hash,
                min(coalesce(record->>'createdAt', record->>'finishedAt') COLLATE "C") AS first_run_at,
                array_agg((record->>'durationMs')::float8 ORDER BY (record->>'durationMs')::float8) AS durations,
                coalesce(sum((record->>'costUsd')::float8), 0)::float8 AS usd,
                -- Each run's nodes, newest run first: their memory peaks are grouped in code, as the file store does.
                jsonb_agg(record->'nodes' ORDER BY record->>'finishedAt' COLLATE "C" DESC) AS nodes
         FROM recent WHERE hash IS NOT NULL
         GROUP BY hash ORDER BY first_run_at DESC, hash COLLATE "C" DESC`,
        [workflow, since, limit],
      );
      return rows.map((row): VersionRuns => ({
        definitionHash: row.hash,
        firstRunAt: row.first_run_at,
        durationsMs: row.durations,
        usd: row.usd,
        nodePeaksBytes: nodePeaks(row.nodes.map((nodes) => ({ nodes: nodes ?? [] }))),
      }));
    },
  };
}
