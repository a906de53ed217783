import { pickOne, shortIdPrefix, type ShortIdKind } from '../../shared/short-ids.js';
import type { RunRecord, RunStatus } from '../model/types.js';

export interface RunFilter {
  status?: RunStatus[];
  workflow?: string;
  conversationId?: string;
  workspaceId?: string;
  /** Follow-on runs of this run (docs/decisions.md, "Follow-on runs"). */
  fromRunId?: string;
  /** Runs that executed this version of their workflow (docs/decisions.md, "Versions"): the hash they last ran under. */
  definitionHash?: string;
  /** Runs created at or after / at or before these times (epoch ms). */
  sinceMs?: number;
  untilMs?: number;
  limit?: number;
  offset?: number;
}

/** A page of runs, the number of matches, and the matches per state (the status filter aside). */
export interface RunPage {
  runs: RunRecord[];
  total: number;
  counts: Partial<Record<RunStatus, number>>;
}

/** Runs newest first (ids grow with time): what every list of runs is ordered by. */
export const newestFirst = (runs: RunRecord[]): RunRecord[] => runs.sort((a, b) => (a.id < b.id ? 1 : -1));

/** One page of `sorted` (newest first) for `filter`: the in-memory answer to the query a database answers in SQL. */
export function pageOfRuns(sorted: readonly RunRecord[], filter: RunFilter): RunPage {
  const offset = filter.offset ?? 0;
  const limit = filter.limit ?? 50;
  const runs: RunRecord[] = [];
  const counts: Partial<Record<RunStatus, number>> = {};
  let total = 0;
  // Stored times are ISO strings in UTC (toISOString), which compare as text in time order.
  const since = filter.sinceMs === undefined ? undefined : new Date(filter.sinceMs).toISOString();
  const until = filter.untilMs === undefined ? undefined : new Date(filter.untilMs).toISOString();
  for (const r of sorted) {
    if (
      (filter.workflow && r.workflow !== filter.workflow) ||
      (filter.conversationId && r.conversationId !== filter.conversationId) ||
      (filter.workspaceId && r.workspaceId !== filter.workspaceId) ||
      (filter.fromRunId && r.fromRunId !== filter.fromRunId) ||
      (filter.definitionHash && r.definitionHash !== filter.definitionHash) ||
      (since !== undefined && r.createdAt < since) ||
      (until !== undefined && r.createdAt > until)
    )
      continue;
    counts[r.status] = (counts[r.status] ?? 0) + 1;
    if (filter.status?.length && !filter.status.includes(r.status)) continue;
    if (total >= offset && runs.length < limit) runs.push(r);
    total++;
  }
  return { runs, total, counts };
}

/** How a run is named by a short id: `run_` and at least four more characters (docs/contract.md, "HTTP"). */
export const RUN_IDS: ShortIdKind = {
  idPrefix: 'run_',
  minChars: 4,
  noun: 'run',
  plural: 'runs',
  notFound: 'run_not_found',
  ambiguous: 'ambiguous_run_id',
};

/**
 * The prefix to look runs up by, or `undefined` when `idOrPrefix` is too short to be one. The
 * characters are counted after `run_`: `run_` itself would otherwise count as 4 and name any
 * single stored run (DELETE /api/workflows/runs/run_ deleted it).
 */
export const runIdPrefix = (idOrPrefix: string): string | undefined => shortIdPrefix(RUN_IDS, idOrPrefix);

/**
 * The run an id or short id names: `exact` if there is one, else the single prefix match (the
 * caller looks prefixes up only when `runIdPrefix` allows); several matches are 400
 * `ambiguous_run_id`, none 404 `run_not_found` (shared/short-ids.ts, which workspaces use too).
 */
export const pickRun = <R extends { id: string }>(idOrPrefix: string, exact: R | undefined, prefixMatches: readonly R[]): R =>
  pickOne(RUN_IDS, idOrPrefix, exact, prefixMatches);
