import type * as z from 'zod';
import { RUN_STATUSES, type RunRecord, type RunStatus } from '../runs/index.js';
import { parseTimeBound } from './query-bounds.js';
import type { RunReads } from './run-reads.js';
import type { DashboardRuns, DashboardRunSchema } from './schemas.js';

/** The dashboard's run query (docs/decisions.md, "Dashboard"): a page of runs with what a row shows, counted per state. */

export interface DashboardQuery {
  status?: RunStatus[];
  workflow?: string;
  workspace_id?: string;
  definitionHash?: string;
  since?: string;
  until?: string;
  limit: number;
  offset: number;
}

/** `GET /api/dashboard/runs`: one page of runs with what a dashboard row shows. */
export async function dashboardRuns(runs: RunReads, query: DashboardQuery, now = Date.now()): Promise<DashboardRuns> {
  const page = await runs.list({
    status: query.status,
    workflow: query.workflow,
    workspaceId: query.workspace_id,
    definitionHash: query.definitionHash,
    sinceMs: parseTimeBound(query.since, now),
    untilMs: parseTimeBound(query.until, now, 'invalid_until', 'until'),
    limit: query.limit,
    offset: query.offset,
  });
  const counts = Object.fromEntries(RUN_STATUSES.map((s) => [s, page.counts[s] ?? 0])) as Record<RunStatus, number>;
  return { runs: page.runs.map((run) => dashboardRow(run, now)), total: page.total, counts };
}

function dashboardRow(run: RunRecord, now: number): z.infer<typeof DashboardRunSchema> {
  const { definition: _definition, variables: _variables, ...view } = run;
  const nodeCounts: Record<string, number> = {};
  for (const state of Object.values(run.nodes)) nodeCounts[state.status] = (nodeCounts[state.status] ?? 0) + 1;
  const states = Object.entries(run.nodes);
  // Where the run is: a running node, else the gate or wait it stopped at.
  const currentNode =
    states.find(([, s]) => s.status === 'running')?.[0] ?? states.find(([, s]) => s.status === 'waiting_approval' || s.status === 'waiting')?.[0] ?? null;
  const end = run.finishedAt ? Date.parse(run.finishedAt) : now;
  return { ...view, durationMs: run.startedAt ? Math.max(0, end - Date.parse(run.startedAt)) : null, nodeCounts, currentNode };
}
