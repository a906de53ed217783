import type { QueueEntry } from '../../client/types.js';
import { client } from '../api.js';
import { useDebounced, useLoad, useStream } from '../hooks.js';
import { formatTime } from '../format.js';
import { ErrorNote, StatusBadge } from './status.js';

/** Why an entry waits or was not landed, and what follows it: one line. */
function why(entry: QueueEntry): string {
  const parts: string[] = [];
  if (entry.reason) parts.push(entry.reason.split('\n')[0]!);
  if (entry.files?.length) parts.push(`(${entry.files.join(', ')})`);
  return parts.join(' ');
}

/**
 * A workspace's landing queue (docs/contract.md, "Landing queue"): each entry in queue order with its
 * state, why it waits or needs rework, the tail of a failed verification, and its rework run. Kept
 * current by the dashboard stream's queue events.
 */
export function LandingQueue({ workspaceId }: { workspaceId: string }) {
  const queue = useLoad(() => client.workspaces.queue(workspaceId), workspaceId);
  const reload = useDebounced(() => queue.reload());
  useStream(
    '__dashboard__',
    (event) => {
      if (event.type.startsWith('queue_') && (event as { workspaceId?: string }).workspaceId === workspaceId) reload();
    },
    { onOpen: reload },
  );
  const entries = queue.data?.entries ?? [];
  return (
    <div data-landing-queue={workspaceId}>
      <h3>Landing queue</h3>
      <ErrorNote error={queue.error} />
      {queue.data && entries.length === 0 ? <p class="note">Empty: a run's Queue button (or `svc runs merge &lt;run&gt; --queue`) puts it here.</p> : null}
      {entries.length > 0 ? (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Target</th>
                <th scope="col">State</th>
                <th scope="col">Why</th>
                <th scope="col">Entered</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.runId} data-queue-entry={entry.runId} data-state={entry.state}>
                  <td>
                    <a class="mono" href={`#/runs/${encodeURIComponent(entry.runId)}`}>
                      {entry.runId.slice(0, 12)}
                    </a>
                    {entry.reworkOf ? <span class="muted"> rework of {entry.reworkOf.slice(0, 12)}</span> : null}
                  </td>
                  <td class="mono">{entry.target}</td>
                  <td>
                    <StatusBadge status={entry.state} />
                    {entry.state === 'landed' && entry.commit ? <span class="mono muted"> {entry.commit.slice(0, 10)}</span> : null}
                  </td>
                  <td>
                    {why(entry)}
                    {entry.reworkRunId ? (
                      <>
                        {' '}
                        → rework{' '}
                        <a class="mono" href={`#/runs/${encodeURIComponent(entry.reworkRunId)}`}>
                          {entry.reworkRunId.slice(0, 12)}
                        </a>
                      </>
                    ) : null}
                    {entry.outputTail ? (
                      <details>
                        <summary>verification output</summary>
                        <pre class="output">{entry.outputTail}</pre>
                      </details>
                    ) : null}
                  </td>
                  <td>{formatTime(entry.enteredAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}
