/* The API's shapes of benchmarks, comparisons and the dashboard's page of runs. */
import * as z from 'zod';
import { RUN_STATUSES, RunViewSchema, type RunStatus } from '../runs/index.js';

export const BenchmarkSchema = z.object({
  summary: z.object({
    p50Ms: z.number().describe("the runs' wall time, waits included"),
    p95Ms: z.number(),
    p99Ms: z.number(),
    runs: z.number().int(),
    usd: z.number(),
    workP50Ms: z.number().describe('wall time less the time an approval gate or a wait node was open: what svc and its agents took'),
    workP95Ms: z.number(),
    waitP50Ms: z.number().describe('the time an approval gate (a person) or a wait node (a time, a signal) was open, per run'),
    waitP95Ms: z.number(),
  }),
  nodes: z.array(
    z.object({
      stepName: z.string(),
      p50Ms: z.number(),
      p95Ms: z.number(),
      totalRuns: z.number().int().describe('runs that executed the node (skips do not count)'),
      runsWithCost: z.number().int().describe('of those, runs whose agent reported a cost'),
      totalCostUsd: z.number(),
      waits: z
        .enum(['approval', 'wait'])
        .optional()
        .describe("the node's time is waiting, not work: for a person at an approval gate, or for a time or a signal (a wait node)"),
      peakRssP50Bytes: z
        .number()
        .optional()
        .describe("p50 of the node's peak resident memory (its process tree's, in bytes) over the executions that measured one; absent when none did"),
      peakRssP95Bytes: z.number().optional().describe("p95 of the node's peak resident memory, in bytes; absent when no execution measured one"),
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
      nodes: z
        .array(
          z.object({
            stepName: z.string(),
            runs: z.number().int().describe("of these runs, those that measured the node's peak memory"),
            peakRssP50Bytes: z.number().describe("p50 of the node's peak resident memory in these runs, in bytes"),
            peakRssP95Bytes: z.number().describe("p95 of the node's peak resident memory in these runs, in bytes"),
          }),
        )
        .describe('the nodes whose peak memory was measured in these runs (order: the newest run)'),
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
