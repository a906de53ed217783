import type { EventFeed, FollowOptions, Transport } from './transport.js';
import type { StreamEvent } from './types.js';

export type { EventFeed, FollowOptions } from './transport.js';

/** The dashboard stream: every run event of every conversation. */
export const DASHBOARD_STREAM = '__dashboard__';

/** Give up on a stream that stays unreachable this long. */
const RECONNECT_GIVE_UP_MS = 30_000;

/**
 * Follows a stream the transport's way: in process, the server's own feed (no HTTP, no h3); over
 * HTTP, Server-Sent Events.
 */
export function followStream(transport: Transport, options: FollowOptions): Promise<EventFeed> {
  return transport.follow ? transport.follow(options) : followSse(transport.baseUrl, options);
}

/** SSE with the eventsource client, which reconnects with Last-Event-ID by itself. */
async function followSse(baseUrl: string, options: FollowOptions): Promise<EventFeed> {
  const { EventSource } = await import('eventsource');
  const url = new URL(`/api/stream/${encodeURIComponent(options.stream)}`, baseUrl);
  if (options.runId !== undefined) url.searchParams.set('runId', options.runId);
  if (options.after !== undefined) url.searchParams.set('lastEventId', String(options.after));
  const source = new EventSource(url.toString());
  let failingSince: number | undefined;
  source.onopen = () => {
    failingSince = undefined;
    options.onOpen?.();
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
