import type { StreamEvent } from '../../events/bus.js';
import type { RunView } from '../../engine/run-view.js';
import { CliError, EXIT } from '../exit-codes.js';
import type { CommandContext } from '../command-context.js';
import { SETTLING_EVENTS } from './outcome.js';

/** Give up on a server that stays unreachable this long while following. */
const RECONNECT_GIVE_UP_MS = 30_000;

const SETTLED_STATUSES = new Set(['completed', 'failed', 'cancelled', 'abandoned', 'paused']);

/**
 * Follows one run over SSE until it settles, then returns its final record. The stream starts at
 * position `after` (0: the run's whole history) so what happened before we connected is replayed
 * first; the eventsource client reconnects with Last-Event-ID by itself if the connection drops.
 * A replayed history can hold an earlier ending (a resumed or approved run), so a settling event
 * ends the follow only when the run is settled now.
 */
export async function followRunOverSse(cmd: CommandContext, runId: string, onEvent: (event: StreamEvent) => void, after = 0): Promise<RunView> {
  const { EventSource } = await import('eventsource');
  const url = new URL('/api/stream/__dashboard__', cmd.client.baseUrl);
  url.searchParams.set('runId', runId);
  url.searchParams.set('lastEventId', String(after));
  const fetchRun = () => cmd.client.request<RunView>('GET', `/api/workflows/runs/${encodeURIComponent(runId)}`);
  let final: RunView | undefined;
  await new Promise<void>((resolve, reject) => {
    const source = new EventSource(url.toString());
    let failingSince: number | undefined;
    const done = (error?: Error) => {
      source.close();
      if (error) reject(error);
      else resolve();
    };
    source.onopen = () => {
      failingSince = undefined;
    };
    source.onmessage = (message) => {
      let event: StreamEvent;
      try {
        event = JSON.parse(message.data) as StreamEvent;
      } catch {
        return;
      }
      onEvent(event);
      if (event.runId !== runId || !SETTLING_EVENTS.has(event.type)) return;
      if (event.type === 'run_deleted') return done(new CliError(`Run ${runId} was deleted.`, EXIT.failed));
      fetchRun().then((run) => {
        if (!SETTLED_STATUSES.has(run.status)) return;
        final = run;
        done();
      }, done);
    };
    source.onerror = () => {
      failingSince ??= Date.now();
      if (source.readyState === EventSource.CLOSED || Date.now() - failingSince > RECONNECT_GIVE_UP_MS) {
        done(new CliError(`Lost the connection to ${cmd.client.baseUrl} while following run ${runId}.`, EXIT.unreachable));
      }
    };
  });
  return final ?? fetchRun();
}
