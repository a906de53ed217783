import type { H3Event } from 'h3';
import type { z } from 'zod';
import type { AppContext } from '../app/context.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * The security schemes the OpenAPI document defines (`components.securitySchemes`, built in
 * openapi.ts). The API itself has no authentication; the webhook endpoint is authenticated by
 * its signature header.
 */
export const SECURITY_SCHEMES = ['webhookSignature'] as const;
export type SecuritySchemeName = (typeof SECURITY_SCHEMES)[number];

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Defaults to application/json; SSE routes say text/event-stream. */
  contentType?: string;
}

/**
 * The request headers as handlers read them: h3's `Headers` over HTTP, a plain map in process
 * (`headersOf` in dispatch.ts), because the first use of the global `Headers` loads undici (~20 ms
 * for an offline command; docs/ARCHITECTURE.md, "Start-up cost"). Names are matched case-insensitively.
 */
export type RequestHeaders = Pick<Headers, 'get' | 'has'>;

export interface HandlerInput<TBody, TQuery, TParams> {
  ctx: AppContext;
  body: TBody;
  query: TQuery;
  params: TParams;
  /** Raw request bytes, only for routes with `rawBody` (the webhook HMAC needs the exact bytes). */
  raw: Uint8Array | undefined;
  /** The request headers (in process: the ones the client sends, e.g. `x-svc-actor`). */
  headers: RequestHeaders;
  /**
   * The h3 event, only when h3 received the request: a stream writes to it. JSON routes never
   * need it, so they answer the same in process, where there is none (server/dispatch.ts).
   */
  event: H3Event | undefined;
}

/**
 * One API route: its schemas validate the request at the edge AND generate the OpenAPI document,
 * so the two cannot drift. Handlers receive typed, validated input and return a plain object
 * (h3's fast path), a `Reply` for a non-200 status, or a stream.
 */
export interface RouteSpec<TBody = unknown, TQuery = unknown, TParams = unknown> {
  method: HttpMethod;
  /** OpenAPI style: `/api/workflows/{name}`. */
  path: string;
  summary: string;
  tag: string;
  params?: z.ZodType<TParams>;
  query?: z.ZodType<TQuery>;
  body?: z.ZodType<TBody>;
  /** A missing body is allowed and validated as `undefined`. */
  bodyOptional?: boolean;
  /** Keep the exact bytes and skip JSON parsing (webhooks). */
  rawBody?: boolean;
  /** Body cap in bytes; defaults to the API's 1 MiB. */
  bodyLimit?: number;
  responses: Record<number, ResponseSpec>;
  /** Error statuses this route can answer (documented with the shared error body). */
  errors?: number[];
  /** How callers authenticate; absent means the API's default: no authentication. */
  security?: SecuritySchemeName;
  handle(input: HandlerInput<TBody, TQuery, TParams>): unknown;
}

export function defineRoute<TBody = undefined, TQuery = undefined, TParams = undefined>(spec: RouteSpec<TBody, TQuery, TParams>): RouteSpec {
  return spec as unknown as RouteSpec;
}

/**
 * The error statuses a route answers: its own list, plus 408 `request_timeout` for a route that
 * reads a body (one not arrived whole in time: server/http-input.ts), documented and checked alike.
 */
export function errorStatusesOf(route: RouteSpec): number[] {
  const errors = route.errors ?? [];
  return (route.body || route.rawBody) && !errors.includes(408) ? [...errors, 408].sort((a, b) => a - b) : errors;
}

/** A response with an explicit status (202 on start, 201 on create, …). */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

export const reply = (status: number, body: unknown) => new Reply(status, body);

/** `/api/workflows/{name}` → `/api/workflows/:name` for the router. */
export const toRouterPath = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');
