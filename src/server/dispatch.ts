import { addRoute, createRouter, findRoute } from 'rou3';
import type { H3Event } from 'h3';
import type { AppContext } from '../app/context.js';
import { errorAnswer } from '../shared/error-answer.js';
import { DomainError, isDomainError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { checkResponse } from './response-check.js';
import { Reply, toRouterPath, type RequestHeaders, type RouteSpec } from './route.js';
import { API_BODY_LIMIT, validate } from './validation.js';

/**
 * The one way a route is run, whoever received the request: the h3 app (src/server/app.ts) and the
 * CLI's in-process API (src/runtime.ts). It loads no h3 (h3 imports srvx, which loads undici: ~50 ms
 * for an offline command, docs/ARCHITECTURE.md "Start-up cost"); what differs per door is only how
 * the body is read, which the door passes in.
 */

export interface Answer {
  status: number;
  body: unknown;
}

/** One request, as a door hands it over; the body is read only when the route takes one. */
export interface RouteCall {
  method: string;
  /** The path without its query, for logs and messages. */
  pathname: string;
  /** Path parameters as the router matched them, still percent-encoded. */
  params: Record<string, string>;
  query: Record<string, string>;
  headers: RequestHeaders;
  /** The JSON body (`undefined`: none), capped at `limit` bytes. */
  readJson(limit: number): Promise<unknown>;
  /** The exact bytes (routes with `rawBody`), capped at `limit`. */
  readRaw(limit: number): Promise<Uint8Array>;
  /** The h3 event, when h3 received the request (streams write to it). */
  event?: H3Event;
}

export interface InvokeOptions {
  /** Check the answer against what the route documents (`SVC_VALIDATE_RESPONSES`). */
  validateResponses: boolean;
  /** How a thrown error becomes an answer; h3's door adds its own error classes. @default toErrorAnswer */
  toError?: (error: unknown, call: RouteCall, logger: Logger) => Answer;
}

const INTERNAL_ERROR_MESSAGE = 'An internal error occurred; details are in the server log.';

/**
 * What every door answers for a thrown error: a DomainError is an expected answer (its code's
 * status, the one body: shared/error-answer.ts); anything else is a bug: 500 with a generic
 * message, the stack in the log only. h3's door first turns h3's own errors into DomainErrors
 * (server/error-response.ts).
 */
export function toErrorAnswer(error: unknown, call: Pick<RouteCall, 'method' | 'pathname'>, logger: Logger): Answer {
  if (isDomainError(error)) return errorAnswer(error);
  logger.error('http.internal_error', {
    method: call.method,
    path: call.pathname,
    error: error instanceof Error ? error.message : String(error),
    stack: error instanceof Error ? error.stack : undefined,
  });
  return errorAnswer(new DomainError('internal_error', INTERNAL_ERROR_MESSAGE));
}

/** Headers from a plain record, for a door that has no `Headers` object (and must not load undici for one). */
export function headersOf(record: Record<string, string>): RequestHeaders {
  const byName = new Map(Object.entries(record).map(([name, value]) => [name.toLowerCase(), value]));
  return {
    get: (name) => byName.get(name.toLowerCase()) ?? null,
    has: (name) => byName.has(name.toLowerCase()),
  };
}

function decodeParams(raw: Record<string, string>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    try {
      params[key] = decodeURIComponent(value);
    } catch {
      params[key] = value;
    }
  }
  return params;
}

/** The answer, or a 500 when it is not what the route documents (status, schema, members). */
function checkedAnswer(route: RouteSpec, ctx: AppContext, call: RouteCall, { status, body }: Answer): Answer {
  const issues = checkResponse(route, status, body);
  if (issues.length === 0) return { status, body };
  ctx.logger.error('response.schema_mismatch', { method: call.method, path: call.pathname, route: route.path, status, issues });
  return errorAnswer(
    new DomainError(
      'internal_error',
      `The ${status} answer does not match what ${route.method} ${route.path} documents (response.schema_mismatch in the log).`,
      { status, issues },
    ),
  );
}

/** Runs one route: validate params, query and body at the edge, call the handler, shape the answer, map errors. */
export async function invokeRoute(ctx: AppContext, route: RouteSpec, call: RouteCall, options: InvokeOptions): Promise<Answer> {
  let answer: Answer;
  try {
    const params = route.params ? validate(route.params, decodeParams(call.params), 'path') : undefined;
    const query = route.query ? validate(route.query, call.query, 'query') : undefined;
    const limit = route.bodyLimit ?? API_BODY_LIMIT;
    let raw: Uint8Array | undefined;
    let body: unknown;
    if (route.rawBody) {
      raw = await call.readRaw(limit);
    } else if (route.body) {
      const json = await call.readJson(limit);
      body = json === undefined && route.bodyOptional ? undefined : validate(route.body, json, 'body');
    }
    const result = await route.handle({ ctx, body, query, params, raw, headers: call.headers, event: call.event });
    answer = result instanceof Reply ? { status: result.status, body: result.body } : { status: 200, body: result };
  } catch (error) {
    answer = (options.toError ?? toErrorAnswer)(error, call, ctx.logger);
  }
  return options.validateResponses ? checkedAnswer(route, ctx, call, answer) : answer;
}

/** A route, or (a path's catch-all) the methods the path allows. */
interface Match {
  route?: RouteSpec;
  methods?: string[];
}

export interface RouteTable {
  /** The route for a request as h3 picks it (a literal segment beats a parameter), or the methods its path allows. */
  find(method: string, pathname: string): { route: RouteSpec; params: Record<string, string> } | { allowed: string[] } | undefined;
}

/**
 * The routes in h3's own router (rou3), registered as the h3 app registers them: each route under
 * its method, then per path a catch-all that answers 405 with the methods it does allow.
 */
export function createRouteTable(routes: readonly RouteSpec[]): RouteTable {
  const router = createRouter<Match>();
  const methodsByPath = new Map<string, string[]>();
  for (const route of routes) {
    addRoute(router, route.method, toRouterPath(route.path), { route });
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
  }
  for (const [path, methods] of methodsByPath) addRoute(router, '', toRouterPath(path), { methods });
  return {
    find(method, pathname) {
      const match = findRoute(router, method, pathname);
      if (!match) return undefined;
      return match.data.route ? { route: match.data.route, params: { ...match.params } } : { allowed: match.data.methods ?? [] };
    },
  };
}

/** The one `route_not_found`, whichever door found no route (the dispatcher, the h3 app, the dashboard's assets). */
export function routeNotFound(method: string, pathname: string): DomainError {
  return new DomainError('route_not_found', `No route matches ${method} ${pathname}.`);
}

/** A method the path does not take; `allowed`, when known, is named in the message. */
export function methodNotAllowed(method: string, pathname: string, allowed?: readonly string[]): DomainError {
  const use = allowed ? `; use ${allowed.join(' or ')}` : '';
  return new DomainError('method_not_allowed', `${method} is not allowed on ${pathname}${use}.`);
}

/** The answer for a path no route takes: 405 with the methods that path allows, else 404 (as the h3 app answers). */
export function unmatchedAnswer(method: string, pathname: string, allowed: string[] | undefined): Answer & { allow?: string } {
  if (allowed) return { ...errorAnswer(methodNotAllowed(method, pathname, allowed)), allow: allowed.join(', ') };
  return errorAnswer(routeNotFound(method, pathname));
}
