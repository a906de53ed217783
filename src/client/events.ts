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

/** Where a stream is followed over HTTP: its path, narrowed to a run, replaying after a position. */
export function streamUrl(baseUrl: string, options: Pick<FollowOptions, 'stream' | 'runId' | 'after'>): string {
  const url = new URL(`/api/stream/${encodeURIComponent(options.stream)}`, baseUrl);
  if (options.runId !== undefined) url.searchParams.set('runId', options.runId);
  if (options.after !== undefined) url.searchParams.set('lastEventId', String(options.after));
  return url.toString();
}

/** Hands one SSE frame's data to the follower; a frame that is not JSON (none we send) is skipped. */
export function deliverFrame(options: Pick<FollowOptions, 'onEvent'>, data: string): void {
  let event: StreamEvent;
  try {
    event = JSON.parse(data) as StreamEvent;
  } catch {
    return;
  }
  options.onEvent(event, data);
}

/** SSE with the eventsource client, which reconnects with Last-Event-ID by itself. */
async function followSse(baseUrl: string, options: FollowOptions): Promise<EventFeed> {
  const { EventSource } = await import('eventsource');
  const source = new EventSource(streamUrl(baseUrl, options));
  let failingSince: number | undefined;
  source.onopen = () => {
    failingSince = undefined;
    options.onOpen?.();
  };
  source.onmessage = (message) => deliverFrame(options, message.data);
  source.onerror = () => {
    failingSince ??= Date.now();
    if (source.readyState === EventSource.CLOSED || Date.now() - failingSince > RECONNECT_GIVE_UP_MS) {
      source.close();
      options.onLost();
    }
  };
  return { close: () => source.close() };
}
