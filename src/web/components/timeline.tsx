import type { RunView } from '../../client/types.js';
import { formatDuration, spanMs } from '../format.js';

/**
 * A Gantt chart of the run's node executions: one row per node that started, its bar from start
 * to finish on the run's own time axis (a running node's bar grows to `now`).
 */
export function Timeline({ run, now }: { run: RunView; now: number }) {
  const rows = Object.entries(run.nodes)
    .filter(([, node]) => node.startedAt !== null)
    .map(([id, node]) => ({ id, node, start: Date.parse(node.startedAt!), end: node.finishedAt ? Date.parse(node.finishedAt) : now }))
    .sort((a, b) => a.start - b.start);
  if (rows.length === 0) return <p class="note">No node has started yet.</p>;
  const origin = run.startedAt ? Math.min(Date.parse(run.startedAt), rows[0]!.start) : rows[0]!.start;
  const last = Math.max(...rows.map((row) => row.end), run.finishedAt ? Date.parse(run.finishedAt) : now);
  const span = Math.max(last - origin, 1);
  return (
    <div class="timeline" role="table" aria-label="Timeline of node executions">
      {rows.map(({ id, node, start, end }) => (
        <div class="timeline-row" role="row" key={id} data-node-id={id}>
          <span class="timeline-label mono" role="rowheader">
            {id}
          </span>
          <span class="timeline-track" role="cell">
            <span
              class={`timeline-bar status-${node.status}`}
              ref={(el) => {
                // Positioned through the CSSOM: the page's CSP allows no inline style attributes.
                if (!el) return;
                el.style.left = `${((start - origin) / span) * 100}%`;
                el.style.width = `${Math.max(((end - start) / span) * 100, 0.5)}%`;
              }}
              title={`${id}: ${formatDuration(spanMs(node.startedAt, node.finishedAt, now))}`}
            />
          </span>
          <span class="timeline-time" role="cell">
            {formatDuration(spanMs(node.startedAt, node.finishedAt, now))}
          </span>
        </div>
      ))}
    </div>
  );
}
