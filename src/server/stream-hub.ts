import { EventStream, type H3Event } from 'h3';
import type { AppContext } from '../app/context.js';
import type { SvcStreamEvent } from '../conversations/index.js';
import { openFeed, positionOf, type StreamSource } from './stream-feed.js';

export { MAX_CLIENT_BACKLOG, type StreamSource } from './stream-feed.js';
export const HEARTBEAT_MS = 15_000;

function frame(event: SvcStreamEvent) {
  return { id: String(positionOf(event)), data: JSON.stringify(event) };
}

/** The Last-Event-ID header (EventSource reconnects) or `?lastEventId=` (first connects). */
export function lastEventIdOf(event: H3Event): number | undefined {
  const raw = event.req.headers.get('last-event-id') ?? event.url.searchParams.get('lastEventId');
  if (raw === null || raw.trim() === '') return undefined;
  const value = Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * Opens an SSE stream on a feed (stream-feed.ts: subscribe first, replay what the client missed,
 * then flush the buffer minus what the replay sent). A client whose unwritten frames pass the
 * feed's bound is closed; it reconnects with Last-Event-ID.
 */
export function openEventStream(ctx: AppContext, event: H3Event, source: StreamSource): EventStream {
  const stream = new EventStream(event);
  const close = async () => {
    feed.close();
    await stream.close();
  };
  const feed = openFeed(ctx, {
    source,
    after: lastEventIdOf(event),
    write: (item) => stream.push(frame(item)),
    onOverflow: (backlog) => {
      ctx.logger.warn('stream.slow_client_closed', { path: event.url.pathname, backlog });
      void close();
    },
  });
  const heartbeat = setInterval(() => void stream.pushComment('heartbeat'), HEARTBEAT_MS);
  heartbeat.unref();
  ctx.closers.add(close);
  stream.onClosed(() => {
    feed.close();
    clearInterval(heartbeat);
    ctx.closers.delete(close);
  });

  void (async () => {
    await stream.pushComment('connected');
    await feed.start();
  })();
  return stream;
}
