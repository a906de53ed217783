import * as z from 'zod';
import { BenchmarkSchema, ComparisonSchema, DashboardRunsSchema, VersionBenchmarkSchema } from '../../benchmarks/index.js';
import { RunStatusListSchema } from '../../runs/index.js';
import { defineRoute } from '../route.js';

/** `since` and `limit` stay strings here: the domain checks them, with their own error codes. */
const BenchmarkQuery = z.object({
  workflow: z.string().min(1).describe('the workflow name'),
  since: z.string().optional().describe('`<n>h`, `<n>d`, `<n>w` or an ISO date; omitted: all history'),
  limit: z.string().optional().describe('runs to measure, newest first: 1–200, default 20'),
  group: z.enum(['version']).optional().describe('`version`: the same runs per version of the workflow, `{ versions }` (docs/decisions.md, Versions)'),
});

const CompareQuery = z.object({
  runA: z.string().min(1).describe('run id'),
  runB: z.string().min(1).describe('run id'),
});

const DashboardQuery = z.object({
  status: RunStatusListSchema.optional().describe('comma-separated run states'),
  workflow: z.string().optional(),
  workspace_id: z.string().optional(),
  definitionHash: z.string().min(1).optional().describe("runs of this version of their workflow (a run's `definitionHash`)"),
  since: z.string().optional().describe('runs created since: `<n>h|d|w` or an ISO date'),
  until: z.string().optional().describe('runs created until: `<n>h|d|w` ago or an ISO date'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

export const benchmarkRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/runs/benchmark',
    summary: 'Percentiles of run and node times and costs over recent completed and failed runs of a workflow (`group=version`: per version)',
    tag: 'benchmarks',
    query: BenchmarkQuery,
    errors: [400],
    responses: {
      200: { description: 'The benchmark; with `group=version`, one entry per version', schema: z.union([BenchmarkSchema, VersionBenchmarkSchema]) },
    },
    handle: ({ ctx, query: { group, ...query } }) => (group === 'version' ? ctx.benchmarks.byVersion(query) : ctx.benchmarks.benchmark(query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/runs/benchmark/compare',
    summary: 'Node times and costs of two runs side by side',
    tag: 'benchmarks',
    query: CompareQuery,
    errors: [400, 404],
    responses: { 200: { description: 'The comparison', schema: ComparisonSchema } },
    handle: ({ ctx, query }) => ctx.benchmarks.compare(query.runA, query.runB),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/runs/benchmark/workflows',
    summary: 'Every workflow with at least one run record',
    tag: 'benchmarks',
    responses: { 200: { description: 'Workflow names, sorted', schema: z.object({ workflows: z.array(z.string()) }) } },
    handle: async ({ ctx }) => ({ workflows: await ctx.benchmarks.workflows() }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/dashboard/runs',
    summary: 'Runs for a dashboard: filtered, paged, counted per state, with durations and node counts',
    tag: 'benchmarks',
    query: DashboardQuery,
    errors: [400],
    responses: { 200: { description: 'A page of runs', schema: DashboardRunsSchema } },
    handle: ({ ctx, query }) => ctx.benchmarks.dashboardRuns(query),
  }),
];
