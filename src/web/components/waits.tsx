import type { RunDetail } from '../../client/types.js';
import { formatTime } from '../format.js';

/**
 * A waiting run (docs/decisions.md, "Waits and signals"): each waiting node with what it waits for —
 * its time, or an event and how to signal it — and when the server continues the run on its own.
 */
export function Waits({ run }: { run: RunDetail }) {
  const waiting = Object.entries(run.nodes).filter(([, node]) => node.status === 'waiting');
  return (
    <div class="waits" role="region" aria-label="Waiting">
      <p>
        <strong>Waiting</strong>
        {run.wakeAt ? <> — continues by itself at {formatTime(run.wakeAt)}</> : <> — for a signal</>}; it holds no run slot.
      </p>
      <ul>
        {waiting.map(([id, node]) => (
          <li key={id} data-wait={id}>
            <span class="mono">{id}</span>
            {node.waitEvent ? (
              <>
                {' '}
                waits for the event <span class="mono">{node.waitEvent}</span>
                {node.waitUntil ? <>, until {formatTime(node.waitUntil)} (then it fails wait_timeout)</> : null}:{' '}
                <code>
                  svc signal {run.id} {node.waitEvent}
                </code>
              </>
            ) : (
              <> waits until {formatTime(node.waitUntil)}</>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
