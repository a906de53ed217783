/**
 * The live memory figure of a running node (docs/decisions.md, "Memory while a node runs"): the
 * sampler reads every 500 ms, but an event per sample would be persisted and streamed to every
 * follower; at most one `node_memory` event per node every `MEMORY_EVENT_MS`, and none while the
 * figure holds still, keeps a long node's log small and a short node (most bash nodes) silent.
 */

/** The least time between two `node_memory` events of one node. */
export const MEMORY_EVENT_MS = 2000;

/** A change smaller than this (or than 5% of the last figure, whichever is larger) is not news. */
const MEMORY_EVENT_MIN_CHANGE = 1024 * 1024;

/**
 * Throttles one node's samples into `emit` calls. The node's peak is carried across its attempts
 * (`previousPeak`), as the node's recorded `peakRssBytes` is. `now` is injectable for tests.
 */
export function memoryEvents(
  emit: (fields: { rssBytes: number; peakRssBytes: number }) => void,
  previousPeak = 0,
  now: () => number = Date.now,
): (rssBytes: number) => void {
  // Counted from the first sample: a node that ends within MEMORY_EVENT_MS says nothing live (its peak is on the record).
  let last: { at: number; rssBytes: number } | undefined;
  let peak = previousPeak;
  return (rssBytes) => {
    peak = Math.max(peak, rssBytes);
    const at = now();
    if (last === undefined) {
      last = { at, rssBytes: -Infinity };
      return;
    }
    if (at - last.at < MEMORY_EVENT_MS) return;
    if (Math.abs(rssBytes - last.rssBytes) < Math.max(MEMORY_EVENT_MIN_CHANGE, last.rssBytes * 0.05)) return;
    last = { at, rssBytes };
    emit({ rssBytes, peakRssBytes: peak });
  };
}
