import { benchmark, compareRuns, versionBenchmark } from './benchmark.js';
import { dashboardRuns, type DashboardQuery } from './dashboard-query.js';
import type { RunReads } from './run-reads.js';
import type { Benchmark, Comparison, DashboardRuns, VersionBenchmark } from './schemas.js';

export interface BenchmarkQuery {
  workflow: string;
  since?: string;
  limit?: string;
}

/** Benchmarks, comparisons and the dashboard's page of runs, over what runs offer to read. */
export class BenchmarkService {
  constructor(private readonly runs: RunReads) {}

  benchmark(query: BenchmarkQuery): Promise<Benchmark> {
    return benchmark(this.runs, query);
  }

  /** One benchmark per version of the workflow's definition (docs/decisions.md, "Versions"). */
  byVersion(query: BenchmarkQuery): Promise<VersionBenchmark> {
    return versionBenchmark(this.runs, query);
  }

  compare(runA: string, runB: string): Promise<Comparison> {
    return compareRuns(this.runs, runA, runB);
  }

  /** Every workflow with at least one run record, sorted. */
  workflows(): Promise<string[]> {
    return this.runs.workflows();
  }

  dashboardRuns(query: DashboardQuery): Promise<DashboardRuns> {
    return dashboardRuns(this.runs, query);
  }
}
