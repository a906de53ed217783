// What the bench modules measure with: the median of a sample, and the median latency of one GET.
import { performance } from 'node:perf_hooks';

/** The middle value (the mean of the two middle ones for an even count); the input is not reordered. */
export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Median milliseconds of `requests` sequential GETs of `path`, after `warmup` unmeasured ones. */
export async function latency(base, path, { warmup = 30, requests = 200 } = {}) {
  for (let i = 0; i < warmup; i++) await fetch(`${base}${path}`).then((r) => r.arrayBuffer());
  const times = [];
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    await fetch(`${base}${path}`).then((r) => r.arrayBuffer());
    times.push(performance.now() - started);
  }
  return median(times);
}
