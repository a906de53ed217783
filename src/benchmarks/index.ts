/**
 * Benchmarks of runs (percentiles of time and cost, per version, two runs compared) and the
 * dashboard's run query, read through the runs' front door (`BenchmarkService`).
 */
export { BenchmarkService, type BenchmarkQuery } from './service.js';
export type { DashboardQuery } from './dashboard-query.js';
export type { RunReads } from './run-reads.js';
export { BENCHMARK_LIMIT_DEFAULT, BENCHMARK_LIMIT_MAX, parseLimit, parseTimeBound } from './query-bounds.js';
export {
  BenchmarkSchema,
  ComparisonSchema,
  DashboardRunsSchema,
  VersionBenchmarkSchema,
  type Benchmark,
  type Comparison,
  type DashboardRuns,
  type VersionBenchmark,
} from './schemas.js';
