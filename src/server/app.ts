import { H3, HTTPResponse, type H3Event } from 'h3';
import type { AppContext } from '../app/context.js';
import { toErrorAnswer } from './error-response.js';
import { API_BODY_LIMIT, queryObject, readJsonBody, readRawBody, validate } from './http-input.js';
import { Reply, toRouterPath, type RouteSpec } from './route.js';

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

function errorReply(error: unknown, event: H3Event, ctx: AppContext) {
  const answer = toErrorAnswer(error, event, ctx.logger);
  event.res.status = answer.status;
  return answer.body;
}

/** Wraps a route: validate params, query and body at the edge, call the handler, shape the answer. */
function toHandler(route: RouteSpec, ctx: AppContext) {
  return async (event: H3Event) => {
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
      if (result instanceof Reply) {
        event.res.status = result.status;
        return result.body;
      }
      return result;
    } catch (error) {
      return errorReply(error, event, ctx);
    }
  };
}

/** The h3 app: every route from the table, plus JSON answers for what no route matches. */
export function createApp(ctx: AppContext, routes: readonly RouteSpec[]): H3 {
  const app = new H3({
    onError: (error, event) => {
      const answer = toErrorAnswer(error, event, ctx.logger);
      return new HTTPResponse(JSON.stringify(answer.body), {
        status: answer.status,
        headers: { 'content-type': 'application/json;charset=UTF-8' },
      });
    },
  });
  for (const route of routes) app.on(route.method, toRouterPath(route.path), toHandler(route, ctx));
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
