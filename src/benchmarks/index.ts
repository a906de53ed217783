/** The benchmarks folder's front door: what the rest of svc may use of it. */
export {
  type Benchmark,
  BenchmarkSchema,
  type Comparison,
  ComparisonSchema,
  type DashboardRuns,
  DashboardRunsSchema,
  type VersionBenchmark,
  VersionBenchmarkSchema,
  benchmark,
  compareRuns,
  dashboardRuns,
  parseTimeBound,
  versionBenchmark,
} from './benchmark.js';
