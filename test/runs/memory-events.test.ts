// The live memory figure's throttle (src/runs/executor/memory-events.ts): at most one `node_memory`
// event per node every MEMORY_EVENT_MS, none while the figure holds still, none for a short node.
// The clock is injected: what is tested is the rule, not the time it takes.
import { describe, expect, it } from 'vitest';
import { MEMORY_EVENT_MS, memoryEvents } from '../../src/runs/executor/memory-events.js';

const MB = 1e6;

function throttle(previousPeak = 0) {
  let clock = 0;
  const emitted: Array<{ rssBytes: number; peakRssBytes: number }> = [];
  const sample = memoryEvents(
    (fields) => emitted.push(fields),
    previousPeak,
    () => clock,
  );
  return { emitted, sample: (ms: number, bytes: number) => ((clock = ms), sample(bytes)) };
}

describe('node_memory events', () => {
  it('says nothing within the first interval: a short node is silent', () => {
    const { emitted, sample } = throttle();
    sample(0, 3 * MB);
    sample(500, 200 * MB);
    sample(MEMORY_EVENT_MS - 1, 200 * MB);
    expect(emitted).toEqual([]);
  });

  it('gives the figure once an interval has passed, then no more often, and not while it holds still', () => {
    const { emitted, sample } = throttle();
    sample(0, 3 * MB);
    sample(MEMORY_EVENT_MS, 200 * MB);
    sample(MEMORY_EVENT_MS + 500, 300 * MB);
    sample(2 * MEMORY_EVENT_MS, 201 * MB);
    sample(3 * MEMORY_EVENT_MS, 120 * MB);
    expect(emitted).toEqual([
      { rssBytes: 200 * MB, peakRssBytes: 200 * MB },
      { rssBytes: 120 * MB, peakRssBytes: 300 * MB },
    ]);
  });

  it('carries the peak of earlier attempts', () => {
    const { emitted, sample } = throttle(500 * MB);
    sample(0, MB);
    sample(MEMORY_EVENT_MS, 100 * MB);
    expect(emitted).toEqual([{ rssBytes: 100 * MB, peakRssBytes: 500 * MB }]);
  });
});
