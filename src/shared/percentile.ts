/**
 * Nearest-rank percentiles, the one definition benchmarks (docs/decisions.md, "Benchmarks") and
 * the memory estimate from a node's history (docs/decisions.md, "Memory admission") share: always
 * a value that was measured, never an interpolation between two.
 */

/** Nearest rank: the smallest value with at least p% of the values at or below it (0 for none). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}
