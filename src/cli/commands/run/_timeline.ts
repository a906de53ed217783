import type { RunView } from '../../../client/index.js';

const WIDTH = 40;

/**
 * When each node ran, as bars on one time axis from the first start to the last finish:
 *   plan   ████████░░░░░░░░░░░░
 *   test   ░░░░░░░░██████████░░
 */
export function drawTimeline(run: Pick<RunView, 'nodes'>, width = WIDTH): string[] {
  const spans = Object.entries(run.nodes)
    .filter(([, s]) => s.startedAt)
    .map(([id, s]) => ({ id, start: Date.parse(s.startedAt!), end: Date.parse(s.finishedAt ?? s.startedAt!) }));
  if (spans.length === 0) return [];
  const t0 = Math.min(...spans.map((s) => s.start));
  const t1 = Math.max(...spans.map((s) => s.end));
  const scale = (t: number) => (t1 === t0 ? 0 : Math.round(((t - t0) / (t1 - t0)) * width));
  const pad = Math.max(...spans.map((s) => s.id.length));
  return spans
    .sort((a, b) => a.start - b.start)
    .map((s) => {
      const from = Math.min(scale(s.start), width - 1);
      const to = Math.max(scale(s.end), from + 1);
      return `${s.id.padEnd(pad)}  ${'░'.repeat(from)}${'█'.repeat(to - from)}${'░'.repeat(Math.max(0, width - to))}`;
    });
}
