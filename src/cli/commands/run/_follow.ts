import { DASHBOARD_STREAM, isSettlingEvent, type RunView, type StreamEvent, type SvcClient } from '../../../client/index.js';
import { CliError, EXIT } from '../../exit-codes.js';

const SETTLED_STATUSES = new Set<string>(['completed', 'failed', 'cancelled', 'abandoned', 'paused']);

/** A run that needs nothing more from its follower: terminal, or paused at a gate. */
export const isSettled = (run: Pick<RunView, 'status'>) => SETTLED_STATUSES.has(run.status);

/**
 * Follows one run over its event stream until it settles, then returns its final record. The
 * stream starts at position `after` (0: the run's whole history) so what happened before we
 * connected is replayed first. A replayed history can hold an earlier ending (a resumed or
 * approved run), so a settling event ends the follow only when the run is settled now.
 * Over HTTP or in process alike: the client decides. An aborted `signal` (a caller's time limit)
 * ends the follow early with the run as it is then.
 */
export async function followRun(
  client: SvcClient,
  runId: string,
  onEvent: (event: StreamEvent) => void,
  after = 0,
  /**
   * Stop at a durable wait too: only a server continues a waiting run (docs/decisions.md, "Waits and
   * signals"), so this process, running it without one, would wait for nothing.
   */
  options: { untilWaiting?: boolean; signal?: AbortSignal } = {},
): Promise<RunView> {
  const { signal } = options;
  const settled = (run: RunView) => isSettled(run) || (options.untilWaiting === true && run.status === 'waiting');
  let final: RunView | undefined;
  await new Promise<void>((resolve, reject) => {
    let feed: { close(): void } | undefined;
    let finished = false;
    const done = (error?: Error) => {
      if (finished) return;
      finished = true;
      feed?.close();
      signal?.removeEventListener('abort', stop);
      if (error) reject(error);
      else resolve();
    };
    const stop = () => done();
    if (signal?.aborted) return done();
    signal?.addEventListener('abort', stop);
    client.events
      .follow({
        stream: DASHBOARD_STREAM,
        runId,
        after,
        onEvent: (event) => {
          onEvent(event);
          if (!('runId' in event) || event.runId !== runId) return;
          if (!isSettlingEvent(event) && !(options.untilWaiting && event.type === 'run_waiting')) return;
          if (event.type === 'run_deleted') return done(new CliError(`Run ${runId} was deleted.`, EXIT.failed));
          client.runs.get(runId).then((run) => {
            if (!settled(run)) return;
            final = run;
            done();
          }, done);
        },
        onLost: () => done(new CliError(`Lost the connection to ${client.baseUrl} while following run ${runId}.`, EXIT.unreachable)),
      })
      .then((opened) => {
        feed = opened;
        if (finished) opened.close();
      }, done);
  });
  return final ?? client.runs.get(runId);
}

/** Said when a run this process executed stops at a wait: the next `svc serve` continues it. */
export const waitsForServe = (run: Pick<RunView, 'id' | 'wakeAt'>) =>
  `svc: run ${run.id} waits${run.wakeAt ? ` until ${run.wakeAt}` : ' for a signal'}; no server runs here, and the next \`svc serve\` continues it${run.wakeAt ? ' when its time comes' : ''}.\n`;

/** The highest stream position in a run's history: following from there skips what already happened. */
export async function lastEventPosition(client: SvcClient, runId: string): Promise<number> {
  const detail = await client.runs.get(runId);
  return detail.events.reduce((max, event) => Math.max(max, event.pos ?? 0), 0);
}

/**
 * No server runs here, and this process executes nothing on a shared database: without this note a
 * run that stays `pending` (no server up) would look stuck (docs/scaling.md).
 */
export function waitsForServer(runId: string, detached: boolean): string {
  const note = `svc: no server runs here: run ${runId} waits \`pending\` in the database until a server on it (\`svc serve\` with SVC_DATABASE_URL) claims it.`;
  return detached ? `${note}\n` : `${note} Ctrl-C stops following; the run stays queued.\n`;
}
