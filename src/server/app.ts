import { H3, HTTPResponse, type H3Event } from 'h3';
import type { AppContext } from '../app/context.js';
import { toErrorAnswer } from './error-response.js';
import { API_BODY_LIMIT, queryObject, readJsonBody, readRawBody, validate } from './http-input.js';
import { checkResponse } from './response-check.js';
import { Reply, toRouterPath, type RouteSpec } from './route.js';

export interface AppOptions {
  /**
   * Check every answer against what its route documents (tests turn this on through
   * `SVC_VALIDATE_RESPONSES`): a mismatch answers 500 `internal_error` and logs
   * `response.schema_mismatch` with the issues. @default `ctx.settings.validateResponses`
   */
  validateResponses?: boolean;
}

function decodeParams(event: H3Event): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(event.context.params ?? {})) {
    try {
      params[key] = decodeURIComponent(value);
    } catch {
      params[key] = value;
    }
  }
  return params;
}

/** The answer, or a 500 when it is not what the route documents (status, schema, members). */
function checkedAnswer(route: RouteSpec, ctx: AppContext, event: H3Event, status: number, body: unknown): { status: number; body: unknown } {
  const issues = checkResponse(route, status, body);
  if (issues.length === 0) return { status, body };
  ctx.logger.error('response.schema_mismatch', { method: event.req.method, path: event.url.pathname, route: route.path, status, issues });
  return {
    status: 500,
    body: {
      error: 'internal_error',
      message: `The ${status} answer does not match what ${route.method} ${route.path} documents (response.schema_mismatch in the log).`,
      details: { status, issues },
    },
  };
}

/** Wraps a route: validate params, query and body at the edge, call the handler, shape the answer. */
function toHandler(route: RouteSpec, ctx: AppContext, options: AppOptions) {
  const answer = async (event: H3Event): Promise<{ status: number; body: unknown }> => {
    try {
      const params = route.params ? validate(route.params, decodeParams(event), 'path') : undefined;
      const query = route.query ? validate(route.query, queryObject(event), 'query') : undefined;
      const limit = route.bodyLimit ?? API_BODY_LIMIT;
      let raw: Uint8Array | undefined;
      let body: unknown;
      if (route.rawBody) {
        raw = await readRawBody(event, limit);
      } else if (route.body) {
        const json = await readJsonBody(event, limit);
        body = json === undefined && route.bodyOptional ? undefined : validate(route.body, json, 'body');
      }
      const result = await route.handle({ ctx, body, query, params, raw, event });
      return result instanceof Reply ? { status: result.status, body: result.body } : { status: 200, body: result };
    } catch (error) {
      return toErrorAnswer(error, event, ctx.logger);
    }
  };
  return async (event: H3Event) => {
    let { status, body } = await answer(event);
    if (options.validateResponses) ({ status, body } = checkedAnswer(route, ctx, event, status, body));
    // h3 answers 200 unless told otherwise; a handler's plain object keeps h3's fast path.
    if (status !== 200) event.res.status = status;
    return body;
  };
}

/** The h3 app: every route from the table, plus JSON answers for what no route matches. */
export function createApp(ctx: AppContext, routes: readonly RouteSpec[], options: AppOptions = {}): H3 {
  const appOptions = { validateResponses: ctx.settings.validateResponses, ...options };
  const app = new H3({
    onError: (error, event) => {
      const answer = toErrorAnswer(error, event, ctx.logger);
      return new HTTPResponse(JSON.stringify(answer.body), {
        status: answer.status,
        headers: { 'content-type': 'application/json;charset=UTF-8' },
      });
    },
  });
  for (const route of routes) app.on(route.method, toRouterPath(route.path), toHandler(route, ctx, appOptions));
  // A known path asked with another method is 405 with `Allow`, not a misleading 404. Registered
  // last as catch-alls: the router prefers a method-specific match.
  const methodsByPath = new Map<string, string[]>();
  for (const route of routes) methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
  for (const [path, methods] of methodsByPath) {
    app.all(toRouterPath(path), (event) => {
      event.res.status = 405;
      event.res.headers.set('allow', methods.join(', '));
      return { error: 'method_not_allowed', message: `${event.req.method} is not allowed on ${event.url.pathname}; use ${methods.join(' or ')}.` };
    });
  }
  return app;
}
