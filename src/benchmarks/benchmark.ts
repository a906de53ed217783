import * as z from 'zod';
import { DomainError } from '../shared/errors.js';
import { type RunStore, type RunSummary, RunViewSchema, RUN_STATUSES, type RunRecord, type RunStatus } from '../runs/index.js';

/**
 * Benchmarks and the dashboard's run query (docs/decisions.md, "Benchmarks" and "Dashboard"):
 * percentiles over the summary index (run-summaries.ts), never over event logs.
 */

export const BENCHMARK_LIMIT_DEFAULT = 20;
export const BENCHMARK_LIMIT_MAX = 200;

export const BenchmarkSchema = z.object({
  summary: z.object({ p50Ms: z.number(), p95Ms: z.number(), p99Ms: z.number(), runs: z.number().int(), usd: z.number() }),
  nodes: z.array(
    z.object({
      stepName: z.string(),
      p50Ms: z.number(),
      p95Ms: z.number(),
      totalRuns: z.number().int().describe('runs that executed the node (skips do not count)'),
      runsWithCost: z.number().int().describe('of those, runs whose agent reported a cost'),
      totalCostUsd: z.number(),
    }),
  ),
});
export type Benchmark = z.infer<typeof BenchmarkSchema>;

/** `group=version`: the same runs per version of the workflow, newest version first (docs/decisions.md, "Versions"). */
export const VersionBenchmarkSchema = z.object({
  versions: z.array(
    z.object({
      definitionHash: z.string().describe("sha256 of the definition the runs executed (a run's `definitionHash`)"),
      firstRunAt: z.string().describe('when the earliest of these runs was created'),
      runs: z.number().int(),
      p50Ms: z.number(),
      p95Ms: z.number(),
      usd: z.number().describe('what these runs cost together'),
    }),
  ),
});
export type VersionBenchmark = z.infer<typeof VersionBenchmarkSchema>;

export const ComparisonSchema = z.object({
  nodes: z.array(
    z.object({
      stepName: z.string(),
      runAMs: z.number().nullable(),
      runBMs: z.number().nullable(),
      deltaMs: z.number().nullable().describe('runBMs − runAMs; positive: run B was slower'),
      runACostUsd: z.number().nullable(),
      runBCostUsd: z.number().nullable(),
    }),
  ),
});
export type Comparison = z.infer<typeof ComparisonSchema>;

export const DashboardRunSchema = RunViewSchema.extend({
  durationMs: z.number().nullable().describe('finishedAt (or now) − startedAt; null before it starts'),
  nodeCounts: z.record(z.string(), z.number().int()).describe('nodes per node state'),
  currentNode: z.string().nullable().describe('a running (or else waiting) node'),
});
export const DashboardRunsSchema = z.object({
  runs: z.array(DashboardRunSchema),
  total: z.number().int(),
  counts: z
    .object(Object.fromEntries(RUN_STATUSES.map((status) => [status, z.number().int()])) as Record<RunStatus, z.ZodNumber>)
    .describe('matching runs per state, before the status filter'),
});
export type DashboardRuns = z.infer<typeof DashboardRunsSchema>;

const SINCE_RELATIVE = /^(\d+)([hdw])$/;
const UNIT_MS = { h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** `<n>h|d|w` before `now`, or an ISO date; anything else is 400 `code` (`invalid_since`, `invalid_until`). */
/** The largest time a Date can hold, in ms either side of 1970. */
const MAX_DATE_MS = 8.64e15;

export function parseTimeBound(
  value: string | undefined,
  now = Date.now(),
  code: 'invalid_since' | 'invalid_until' = 'invalid_since',
  name = 'since',
): number | undefined {
  if (value === undefined || value === '') return undefined;
  const refuse = () => new DomainError(code, `${name} is '<n>h', '<n>d', '<n>w' or an ISO date (e.g. 7d, 2026-01-31); got '${value}'.`);
  const relative = SINCE_RELATIVE.exec(value);
  const at = relative ? now - Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS] : ISO_DATE.test(value) ? Date.parse(value) : Number.NaN;
  // Outside what a Date can hold (`99999999999w`) is as wrong as a misspelling, never a 500 later.
  if (!Number.isFinite(at) || Math.abs(at) > MAX_DATE_MS) throw refuse();
  // `2026-02-31` parses (as March 3rd): a day the calendar does not have is refused.
  if (/^\d{4}-\d{2}-\d{2}$/.test(value) && new Date(at).toISOString().slice(0, 10) !== value) throw refuse();
  return at;
}

/** An integer 1–`max`, default `fallback`; anything else is 400 `invalid_limit`. */
export function parseLimit(value: string | undefined, fallback: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max) throw new DomainError('invalid_limit', `limit is an integer from 1 to ${max}; got '${value}'.`);
  return n;
}

/** Nearest rank: the smallest value with at least p% of the values at or below it (0 for none). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

const ascending = (values: number[]) => values.sort((a, b) => a - b);

/** The benchmark document of these summaries (newest first; node order: first seen in the newest run). */
export function benchmarkOf(summaries: readonly RunSummary[]): Benchmark {
  const wall = ascending(summaries.map((s) => s.durationMs));
  const nodes = new Map<string, { times: number[]; withCost: number; cost: number }>();
  for (const summary of summaries) {
    for (const node of summary.nodes) {
      const entry = nodes.get(node.id) ?? { times: [], withCost: 0, cost: 0 };
      nodes.set(node.id, entry);
      entry.times.push(node.durationMs);
      if (node.costUsd !== null) {
        entry.withCost++;
        entry.cost += node.costUsd;
      }
    }
  }
  return {
    summary: {
      p50Ms: percentile(wall, 50),
      p95Ms: percentile(wall, 95),
      p99Ms: percentile(wall, 99),
      runs: summaries.length,
      usd: summaries.reduce((sum, s) => sum + (s.costUsd ?? 0), 0),
    },
    nodes: [...nodes].map(([stepName, entry]) => {
      const times = ascending(entry.times);
      return {
        stepName,
        p50Ms: percentile(times, 50),
        p95Ms: percentile(times, 95),
        totalRuns: times.length,
        runsWithCost: entry.withCost,
        totalCostUsd: entry.cost,
      };
    }),
  };
}

/** `GET /api/runs/benchmark`: the query's raw strings are checked here, so their errors have their own codes. */
export async function benchmark(runs: RunStore, query: { workflow: string; since?: string; limit?: string }): Promise<Benchmark> {
  const sinceMs = parseTimeBound(query.since);
  const limit = parseLimit(query.limit, BENCHMARK_LIMIT_DEFAULT, BENCHMARK_LIMIT_MAX);
  return benchmarkOf(await runs.summaries.recent(query.workflow, { sinceMs, limit }));
}

/** `GET /api/runs/benchmark?group=version`: the benchmark's runs (same `since` and `limit`) per version. */
export async function versionBenchmark(runs: RunStore, query: { workflow: string; since?: string; limit?: string }): Promise<VersionBenchmark> {
  const sinceMs = parseTimeBound(query.since);
  const limit = parseLimit(query.limit, BENCHMARK_LIMIT_DEFAULT, BENCHMARK_LIMIT_MAX);
  const versions = await runs.summaries.versions(query.workflow, { sinceMs, limit });
  return {
    versions: versions.map(({ definitionHash, firstRunAt, durationsMs, usd }) => ({
      definitionHash,
      firstRunAt,
      runs: durationsMs.length,
      p50Ms: percentile(durationsMs, 50),
      p95Ms: percentile(durationsMs, 95),
      usd,
    })),
  };
}

/** Node times of one run as compared: executed nodes only (a skip has no time). */
function executed(run: RunRecord): Map<string, { ms: number; cost: number | null }> {
  const out = new Map<string, { ms: number; cost: number | null }>();
  for (const [id, state] of Object.entries(run.nodes)) {
    if (state.status === 'skipped' || state.startedAt === null || state.durationMs === null) continue;
    out.set(id, { ms: state.durationMs, cost: state.costUsd });
  }
  return out;
}

/** `GET /api/runs/benchmark/compare`: the union of both runs' executed nodes, A's order first. */
export async function compareRuns(runs: RunStore, runA: string, runB: string): Promise<Comparison> {
  const a = executed(await runs.resolve(runA));
  const b = executed(await runs.resolve(runB));
  const names = [...new Set([...a.keys(), ...b.keys()])];
  return {
    nodes: names.map((stepName) => {
      const left = a.get(stepName);
      const right = b.get(stepName);
      return {
        stepName,
        runAMs: left?.ms ?? null,
        runBMs: right?.ms ?? null,
        deltaMs: left && right ? right.ms - left.ms : null,
        runACostUsd: left?.cost ?? null,
        runBCostUsd: right?.cost ?? null,
      };
    }),
  };
}

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
export async function dashboardRuns(runs: RunStore, query: DashboardQuery, now = Date.now()): Promise<DashboardRuns> {
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
