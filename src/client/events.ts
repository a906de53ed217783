import type { Transport } from './transport.js';
import type { StreamEvent } from './types.js';

/** The dashboard stream: every run event of every conversation. */
export const DASHBOARD_STREAM = '__dashboard__';

/** Give up on a stream that stays unreachable this long. */
const RECONNECT_GIVE_UP_MS = 30_000;

export interface FollowOptions {
  /** A conversation id, or DASHBOARD_STREAM. */
  stream: string;
  /** Only this run's events. */
  runId?: string;
  /** Replay what came after this position first (0: the whole history); as Last-Event-ID. */
  after?: number;
  onEvent(event: StreamEvent, raw: string): void;
  /** The stream stayed unreachable (or was closed for good); it is closed now. */
  onLost(): void;
}

export interface EventFeed {
  close(): void;
}

/**
 * Follows an SSE stream with the eventsource client, which reconnects with Last-Event-ID by
 * itself; over either transport (in process, its `fetch` calls the routes directly).
 */
export async function followStream(transport: Transport, options: FollowOptions): Promise<EventFeed> {
  const { EventSource } = await import('eventsource');
  const url = new URL(`/api/stream/${encodeURIComponent(options.stream)}`, transport.baseUrl);
  if (options.runId !== undefined) url.searchParams.set('runId', options.runId);
  if (options.after !== undefined) url.searchParams.set('lastEventId', String(options.after));
  const source = new EventSource(url.toString(), transport.fetch ? { fetch: transport.fetch } : {});
  let failingSince: number | undefined;
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
    options.onEvent(event, message.data);
  };
  source.onerror = () => {
    failingSince ??= Date.now();
    if (source.readyState === EventSource.CLOSED || Date.now() - failingSince > RECONNECT_GIVE_UP_MS) {
      source.close();
      options.onLost();
    }
  };
  return { close: () => source.close() };
}
