import type { ServerResponse } from 'node:http';
import { HTTPResponse, type H3Event } from 'h3';
import type { AppContext } from '../app/context.js';
import type { SvcStreamEvent } from '../conversations/index.js';
import { openSseBody } from './sse-body.js';
import { openFeed, positionOf, type StreamSource } from '../events/index.js';

export type { StreamSource } from '../events/index.js';
export const HEARTBEAT_MS = 15_000;
/**
 * The most bytes one SSE client may leave unread on the server — our queue plus the socket's
 * buffer — before its connection is cut (docs/decisions.md, "Streams"). It reconnects with
 * Last-Event-ID and loses nothing.
 */
export const CLIENT_BUFFER_BUDGET = 1024 * 1024;

const encoder = new TextEncoder();
/**
 * Every client of an event gets the same bytes: encoded once, not once per client, so 500 clients
 * that lag behind hold one copy of what they wait for, not 500. Kept as long as the event is.
 */
const frames = new WeakMap<SvcStreamEvent, Uint8Array>();

function frameOf(event: SvcStreamEvent): Uint8Array {
  let frame = frames.get(event);
  if (!frame) {
    // JSON.stringify escapes line breaks, so the event is one `data:` line.
    frame = encoder.encode(`id: ${positionOf(event)}\ndata: ${JSON.stringify(event)}\n\n`);
    frames.set(event, frame);
  }
  return frame;
}

const CONNECTED = encoder.encode(': connected\n\n');
const HEARTBEAT = encoder.encode(': heartbeat\n\n');

/** The Last-Event-ID header (EventSource reconnects) or `?lastEventId=` (first connects). */
export function lastEventIdOf(event: H3Event): number | undefined {
  const raw = event.req.headers.get('last-event-id') ?? event.url.searchParams.get('lastEventId');
  if (raw === null || raw.trim() === '') return undefined;
  const value = Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** The response's Node object over HTTP; none when h3 serves a request in process (`app.request`). */
const nodeResponseOf = (event: H3Event) => event.runtime?.node?.res as ServerResponse | undefined;

function sseHeaders(event: H3Event): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'text/event-stream',
    'cache-control': 'private, no-cache, no-store, no-transform, must-revalidate, max-age=0',
    // A proxy that buffers would hold the frames back (nginx honours this header).
    'x-accel-buffering': 'no',
  };
  if (event.req.headers.get('connection') === 'keep-alive') headers.connection = 'keep-alive';
  return headers;
}

export interface StreamLabel {
  /** The stream's id as asked: a conversation id or `__dashboard__`. */
  stream: string;
  runId?: string | undefined;
}

/**
 * Opens an SSE stream on a feed (stream-feed.ts: subscribe first, replay what the client missed,
 * then flush the buffer minus what the replay sent). A client that leaves more than
 * CLIENT_BUFFER_BUDGET unread is cut at once — its socket destroyed, its queue dropped, never
 * flushed — with `stream.slow_client_closed` logged; it reconnects with Last-Event-ID.
 */
export function openEventStream(ctx: AppContext, event: H3Event, source: StreamSource<SvcStreamEvent>, label: StreamLabel): HTTPResponse {
  const body = openSseBody();
  const response = nodeResponseOf(event);
  // The response's writableLength counts what its socket has not yet handed to the kernel.
  const waiting = () => body.queuedBytes + (response?.writableLength ?? 0);
  const feed = openFeed(ctx, {
    source,
    after: lastEventIdOf(event),
    write: (item) => body.write(frameOf(item)),
    budget: {
      limit: CLIENT_BUFFER_BUDGET,
      sizeOf: (item) => frameOf(item).byteLength,
      waiting,
      onOverflow: (bufferedBytes) => {
        ctx.logger.warn('stream.slow_client_closed', {
          stream: label.stream,
          ...(label.runId === undefined ? {} : { runId: label.runId }),
          bufferedBytes,
          limit: CLIENT_BUFFER_BUDGET,
        });
        body.abort(new Error('The client left more than the stream buffer budget unread.'));
        // A reset, not a FIN after the unsent bytes: the kernel drops what it still holds for the client too.
        response?.socket?.resetAndDestroy();
      },
    },
  });
  // A client with frames waiting needs no heartbeat, and one that does not read must not collect them.
  const heartbeat = setInterval(() => {
    if (body.queuedBytes === 0) void body.write(HEARTBEAT);
  }, HEARTBEAT_MS);
  heartbeat.unref();
  // A stopping server ends the stream after what is queued, and does not wait for the client to take it.
  const end = () => body.end();
  ctx.closers.add(end);
  body.onClosed(() => {
    feed.close();
    clearInterval(heartbeat);
    ctx.closers.delete(end);
  });

  void body.write(CONNECTED);
  void feed.start();
  return new HTTPResponse(body.stream, { status: 200, headers: sseHeaders(event) });
}
