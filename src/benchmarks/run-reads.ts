import type { RunStore } from '../runs/index.js';

/** What benchmarks and the dashboard read of runs: queries only, never a change. */
export type RunReads = Pick<RunStore, 'resolve' | 'list' | 'workflows'> & { readonly summaries: Pick<RunStore['summaries'], 'recent' | 'versions'> };
