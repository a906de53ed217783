import type { RunDetail, RunEvent } from '../client/types.js';

/** Which shown output was cut at 64 KiB, if any (see `outputCut`). */
export type OutputCut = 'stored' | 'streamed' | null;

/** Events by their per-run `seq`: what the detail answered and what the stream brought since, each once. */
export function mergeEvents(known: RunEvent[], more: RunEvent[]): RunEvent[] {
  const bySeq = new Map<number, RunEvent>();
  for (const event of [...known, ...more]) bySeq.set(event.seq, event);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

/** A node's output as it streamed; a finished node's stored output is the last word. */
export function outputOf(run: RunDetail, events: RunEvent[], nodeId: string): string {
  const node = run.nodes[nodeId];
  if (node?.finishedAt && node.output !== null) return node.output;
  return events
    .filter((event): event is Extract<RunEvent, { type: 'node_output' }> => event.type === 'node_output' && event.nodeId === nodeId)
    .map((event) => event.text)
    .join('');
}

/**
 * Which shown output was cut at 64 KiB: the stored one (the whole output is in `<node>.out`), or
 * the streamed one of a node with none stored (its events stop there; `<node>.log` has the rest).
 */
export function outputCut(run: RunDetail, events: RunEvent[], nodeId: string): OutputCut {
  const node = run.nodes[nodeId];
  if (node?.finishedAt && node.output !== null) return node.outputTruncated ? 'stored' : null;
  return events.some((event) => event.type === 'node_output' && event.nodeId === nodeId && event.truncated === true) ? 'streamed' : null;
}

/**
 * A node's memory as the page shows it: while it runs, the figure of its latest `node_memory`
 * event (live, every few seconds at most); once finished, its recorded peak. Null: nothing measured yet.
 */
export function memoryOf(run: RunDetail, events: RunEvent[], nodeId: string): { bytes: number; live: boolean } | null {
  const node = run.nodes[nodeId];
  if (!node) return null;
  if (node.status === 'running') {
    const last = events.findLast((event): event is Extract<RunEvent, { type: 'node_memory' }> => event.type === 'node_memory' && event.nodeId === nodeId);
    return last ? { bytes: last.rssBytes, live: true } : null;
  }
  return typeof node.peakRssBytes === 'number' ? { bytes: node.peakRssBytes, live: false } : null;
}
