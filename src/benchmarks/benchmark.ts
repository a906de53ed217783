import type { RunRecord, RunSummary } from '../runs/index.js';
import { percentile } from '../shared/percentile.js';
import { BENCHMARK_LIMIT_DEFAULT, BENCHMARK_LIMIT_MAX, parseLimit, parseTimeBound } from './query-bounds.js';
import type { Benchmark, Comparison, VersionBenchmark } from './schemas.js';
import type { RunReads } from './run-reads.js';

/**
 * Benchmarks (docs/decisions.md, "Benchmarks"): percentiles over the summary index
 * (runs/storage/run-summaries.ts), never over event logs, and two runs side by side.
 */

const ascending = (values: number[]) => values.sort((a, b) => a - b);

/** The benchmark document of these summaries (newest first; node order: first seen in the newest run). */
export function benchmarkOf(summaries: readonly RunSummary[]): Benchmark {
  const wall = ascending(summaries.map((s) => s.durationMs));
  // Time spent waiting (a person at a gate, a wait node) apart from the work: a run approved the
  // next morning is not a slow run (docs/decisions.md, "Benchmarks").
  const waited = ascending(summaries.map((s) => Math.min(s.waitedMs ?? 0, s.durationMs)));
  const worked = ascending(summaries.map((s) => s.durationMs - Math.min(s.waitedMs ?? 0, s.durationMs)));
  const nodes = new Map<string, { times: number[]; peaks: number[]; withCost: number; cost: number; waits?: 'approval' | 'wait' }>();
  for (const summary of summaries) {
    for (const node of summary.nodes) {
      const entry = nodes.get(node.id) ?? { times: [], peaks: [], withCost: 0, cost: 0 };
      nodes.set(node.id, entry);
      entry.waits ??= node.waits;
      entry.times.push(node.durationMs);
      if (node.peakRssBytes !== undefined) entry.peaks.push(node.peakRssBytes);
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
      workP50Ms: percentile(worked, 50),
      workP95Ms: percentile(worked, 95),
      waitP50Ms: percentile(waited, 50),
      waitP95Ms: percentile(waited, 95),
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
        ...(entry.waits ? { waits: entry.waits } : {}),
        ...peakPercentiles(entry.peaks),
      };
    }),
  };
}

/**
 * p50 and p95 of a node's peak memory over the executions that measured one (an unmeasured peak is
 * not a zero, as an unknown cost is not); absent when none did, as the node records' fields are.
 */
function peakPercentiles(peaks: number[]): { peakRssP50Bytes?: number; peakRssP95Bytes?: number } {
  if (peaks.length === 0) return {};
  const sorted = ascending(peaks);
  return { peakRssP50Bytes: percentile(sorted, 50), peakRssP95Bytes: percentile(sorted, 95) };
}

/** `GET /api/runs/benchmark`: the query's raw strings are checked here, so their errors have their own codes. */
export async function benchmark(runs: RunReads, query: { workflow: string; since?: string; limit?: string }): Promise<Benchmark> {
  const sinceMs = parseTimeBound(query.since);
  const limit = parseLimit(query.limit, BENCHMARK_LIMIT_DEFAULT, BENCHMARK_LIMIT_MAX);
  return benchmarkOf(await runs.summaries.recent(query.workflow, { sinceMs, limit }));
}

/** `GET /api/runs/benchmark?group=version`: the benchmark's runs (same `since` and `limit`) per version. */
export async function versionBenchmark(runs: RunReads, query: { workflow: string; since?: string; limit?: string }): Promise<VersionBenchmark> {
  const sinceMs = parseTimeBound(query.since);
  const limit = parseLimit(query.limit, BENCHMARK_LIMIT_DEFAULT, BENCHMARK_LIMIT_MAX);
  const versions = await runs.summaries.versions(query.workflow, { sinceMs, limit });
  return {
    versions: versions.map(({ definitionHash, firstRunAt, durationsMs, usd, nodePeaksBytes }) => ({
      definitionHash,
      firstRunAt,
      runs: durationsMs.length,
      p50Ms: percentile(durationsMs, 50),
      p95Ms: percentile(durationsMs, 95),
      usd,
      nodes: nodePeaksBytes.map(({ id, peaksBytes }) => ({
        stepName: id,
        runs: peaksBytes.length,
        peakRssP50Bytes: percentile(peaksBytes, 50),
        peakRssP95Bytes: percentile(peaksBytes, 95),
      })),
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
export async function compareRuns(runs: RunReads, runA: string, runB: string): Promise<Comparison> {
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
