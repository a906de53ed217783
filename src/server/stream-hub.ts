import { EventStream, type H3Event } from 'h3';
import type { AppContext } from '../app/context.js';
import type { RunEvent, RunStreamEvent } from '../engine/events.js';

/** A client more than this many events behind is dropped; it reconnects with Last-Event-ID. */
export const MAX_CLIENT_BACKLOG = 2048;
export const HEARTBEAT_MS = 15_000;

export interface StreamSource {
  /** Which live events this stream carries. */
  matches(event: RunStreamEvent): boolean;
  /** Events after position `after` (from the store), in position order, for Last-Event-ID replay. */
  replay(after: number): Promise<RunEvent[]>;
}

/** `run_deleted` is never persisted and has no position: it is always sent, never replayed. */
const positionOf = (event: RunStreamEvent) => ('pos' in event ? event.pos : 0);

function frame(event: RunStreamEvent) {
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
 * Opens an SSE stream: subscribe first (buffering), replay what the client missed from the store,
 * then flush the buffer minus what the replay already sent — no event lost or doubled in the gap.
 * A slow client never slows the engine: its backlog is bounded and it is closed past it.
 */
export function openEventStream(ctx: AppContext, event: H3Event, source: StreamSource): EventStream {
  const stream = new EventStream(event);
  let backlog = 0;
  let closed = false;
  let replaying = true;
  let lastSent = lastEventIdOf(event) ?? -1;
  const buffered: RunStreamEvent[] = [];

  const send = (item: RunStreamEvent) => {
    if (closed) return;
    const pos = positionOf(item);
    if (pos !== 0 && pos <= lastSent) return;
    if (pos !== 0) lastSent = pos;
    if (backlog >= MAX_CLIENT_BACKLOG) {
      ctx.logger.warn('stream.slow_client_closed', { path: event.url.pathname, backlog });
      void close();
      return;
    }
    backlog++;
    void stream.push(frame(item)).finally(() => backlog--);
  };

  const unsubscribe = ctx.bus.subscribe((item) => {
    if (!source.matches(item)) return;
    if (replaying) buffered.push(item);
    else send(item);
  });
  // Everything published before we subscribed is on disk; everything after reaches the buffer.
  const replayUpTo = ctx.bus.lastPosition;
  const heartbeat = setInterval(() => void stream.pushComment('heartbeat'), HEARTBEAT_MS);
  heartbeat.unref();
  const close = async () => {
    if (closed) return;
    closed = true;
    await stream.close();
  };
  ctx.closers.add(close);
  stream.onClosed(() => {
    closed = true;
    clearInterval(heartbeat);
    unsubscribe();
    ctx.closers.delete(close);
  });

  void (async () => {
    await stream.pushComment('connected');
    const after = lastEventIdOf(event);
    if (after !== undefined) {
      try {
        // Replay is paced by the client (awaited writes), so a long history is no "slow client".
        for (const item of await source.replay(after)) {
          if (closed) break;
          const pos = positionOf(item);
          if (pos > replayUpTo || pos <= lastSent) continue;
          lastSent = pos;
          await stream.push(frame(item));
        }
      } catch (error) {
        ctx.logger.error('stream.replay_failed', { error: (error as Error).message });
      }
    }
    replaying = false;
    for (const item of buffered.splice(0)) send(item);
  })();
  return stream;
}
