/**
 * What the client is built on: one JSON exchange (`send`) and a `fetch` for event streams. Two
 * implementations: HTTP to a server (`http-transport.ts`) and the server's own routes called in
 * this process (`local-transport.ts`), so both modes share validation, error bodies and views.
 *
 * `send` is a small request/answer pair rather than `Request`/`Response`: a short CLI call over
 * node:http must not pay for loading undici (~30 ms on the first `fetch` in Node 20).
 */

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path and query, e.g. `/api/workflows/runs?limit=5`. */
  path: string;
  /** Sent as JSON. */
  body?: unknown;
}

export interface ApiAnswer {
  status: number;
  /** The parsed JSON body (text when the body is not JSON). */
  body: unknown;
}

/** The subset of `fetch` the SSE client (the eventsource package) calls. */
export type StreamFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface Transport {
  /** Where stream URLs point (a real server, or a placeholder origin in process). */
  readonly baseUrl: string;
  send(request: ApiRequest): Promise<ApiAnswer>;
  /** For event streams; `undefined` → the global fetch. */
  readonly fetch?: StreamFetch;
  /**
   * True when runs started through this transport execute in this process (no server): they
   * stop with it, so a command carries them on in the foreground.
   */
  hostsRuns(): Promise<boolean>;
  /** Releases what the transport holds; in process, waits for the runs it set going first. */
  close(): Promise<void>;
}
