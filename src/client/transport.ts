/**
 * What the client is built on: one JSON exchange (`send`) and a way to follow an event stream.
 * Two implementations: HTTP to a server (`http-transport.ts`) and the server's own routes called
 * in this process (`local-transport.ts`), so both modes share validation, error bodies and views.
 *
 * `send` is a small request/answer pair rather than `Request`/`Response`: a short CLI call over
 * node:http must not pay for loading undici (~30 ms on the first `fetch` in Node 20).
 */

import type { StreamEvent } from './types.js';

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path and query, e.g. `/api/workflows/runs?limit=5`. */
  path: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Extra request headers (e.g. `x-svc-actor`), sent by both transports. */
  headers?: Record<string, string>;
}

export interface ApiAnswer {
  status: number;
  /** The parsed JSON body (text when the body is not JSON). */
  body: unknown;
}

/** The headers a request carries, over HTTP and in process alike: JSON both ways, then the caller's own. */
export function requestHeaders(request: ApiRequest, payloadBytes: number | undefined): Record<string, string> {
  return {
    accept: 'application/json',
    ...(payloadBytes === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(payloadBytes) }),
    ...request.headers,
  };
}

export interface FollowOptions {
  /** A conversation id, or DASHBOARD_STREAM. */
  stream: string;
  /** Only this run's events. */
  runId?: string;
  /** Replay what came after this position first (0: the whole history); as Last-Event-ID. */
  after?: number;
  onEvent(event: StreamEvent, raw: string): void;
  /**
   * The stream is open, first or again after a break. A page reloads what it shows here: a
   * reconnect without a Last-Event-ID (nothing received yet) replays nothing, and what happened
   * between a page's first load and its stream's opening is in no replay either.
   */
  onOpen?(): void;
  /** The stream stayed unreachable (or was closed for good); it is closed now. */
  onLost(): void;
}

export interface EventFeed {
  close(): void;
}

/**
 * Where the runs a client starts execute:
 * - `process`: in this process (no server): they stop with it, so a command carries them on in the foreground;
 * - `server`: on the server the client talks to (or another server sharing its database);
 * - `database`: nowhere yet: no server here, the run waits `pending` in the shared database until a
 *   server on it claims it (the CLI's offline mode with SVC_DATABASE_URL, docs/scaling.md).
 */
export type RunHost = 'process' | 'server' | 'database';

export interface Transport {
  /** Where the API is (a real server, or a placeholder origin in process). */
  readonly baseUrl: string;
  send(request: ApiRequest): Promise<ApiAnswer>;
  /** Follows an event stream this transport's own way; `undefined`: SSE from `baseUrl` (events.ts). */
  readonly follow?: (options: FollowOptions) => Promise<EventFeed>;
  /** Where runs started through this transport execute (decided, like a request, on first use). */
  runHost(): Promise<RunHost>;
  /** Releases what the transport holds; in process, waits for the runs it set going first. */
  close(): Promise<void>;
}
