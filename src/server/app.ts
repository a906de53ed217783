import { H3, HTTPResponse, type H3Event } from 'h3';
import type { AppContext } from '../app/context.js';
import { errorAnswer } from '../shared/error-answer.js';
import { DomainError } from '../shared/errors.js';
import { invokeRoute, routeNotFound, unmatchedAnswer, type Answer, type InvokeOptions, type RouteCall } from './dispatch.js';
import { toH3ErrorAnswer } from './error-response.js';
import { queryObject, readJsonBody, readRawBody } from './http-input.js';
import { toRouterPath, type RouteSpec } from './route.js';
import { checkBrowserRequest, checkHost } from './browser-guard.js';
import { webAsset } from './web-assets.js';
import { isLoopbackBind } from './loopback.js';

export interface AppOptions {
  /**
   * Check every answer against what its route documents (tests turn this on through
   * `SVC_VALIDATE_RESPONSES`): a mismatch answers 500 `internal_error` and logs
   * `response.schema_mismatch` with the issues. @default `ctx.settings.validateResponses`
   */
  validateResponses?: boolean;
}

/**
 * The request as the dispatcher takes it; the body is read the h3 way (limits, 413, 415, and 408
 * past `bodyTimeoutMs`: http-input.ts).
 */
function toRouteCall(event: H3Event, bodyTimeoutMs: number): RouteCall {
  return {
    method: event.req.method,
    pathname: event.url.pathname,
    params: event.context.params ?? {},
    query: queryObject(event),
    headers: event.req.headers,
    readJson: (limit) => readJsonBody(event, limit, bodyTimeoutMs),
    readRaw: (limit) => readRawBody(event, limit, bodyTimeoutMs),
    event,
  };
}

/** Wraps a route for h3: the one dispatcher (server/dispatch.ts) answers, h3 writes the answer. */
function toHandler(route: RouteSpec, ctx: AppContext, options: InvokeOptions) {
  return async (event: H3Event) => {
    const { status, body } = await invokeRoute(ctx, route, toRouteCall(event, ctx.settings.bodyTimeoutMs), options);
    // h3 answers 200 unless told otherwise; a handler's plain object keeps h3's fast path.
    if (status !== 200) event.res.status = status;
    // A body refused by its Content-Length is left unread on the connection, which then hangs
    // until the keep-alive timeout: close it. (A chunked body cut off mid-stream is left as it
    // was: its sender is still writing and would see EPIPE before the answer.) A body that timed
    // out is still trickling in: the connection is closed after the answer, which frees the socket.
    if (status === 408 || (status === 413 && event.req.headers.has('content-length'))) event.res.headers.set('connection', 'close');
    return body;
  };
}

/** An error answer written outside a route (h3's error hook, the guard, the dashboard's assets). */
function jsonResponse({ status, body }: Answer): HTTPResponse {
  return new HTTPResponse(JSON.stringify(body), { status, headers: { 'content-type': 'application/json;charset=UTF-8' } });
}

/** The dashboard's page or one of its assets (server/web-assets.ts). */
function serveWebAsset(name: string, pathname: string): HTTPResponse {
  const asset = webAsset(name);
  if (asset) return new HTTPResponse(asset.body, { headers: asset.headers });
  if (name === 'index.html') {
    return jsonResponse(errorAnswer(new DomainError('dashboard_unavailable', 'The dashboard is not built: run `npm run build` in the svc checkout.')));
  }
  return jsonResponse(errorAnswer(routeNotFound('GET', pathname)));
}

/** The h3 app: every route from the table, plus JSON answers for what no route matches. */
export function createApp(ctx: AppContext, routes: readonly RouteSpec[], options: AppOptions = {}): H3 {
  const invokeOptions: InvokeOptions = {
    validateResponses: options.validateResponses ?? ctx.settings.validateResponses,
    toError: (error, call, logger) => toH3ErrorAnswer(error, call.event!, logger),
  };
  const boundToLoopback = isLoopbackBind(ctx.settings.host);
  const app = new H3({
    // h3 answers a path whose percent-encoding does not decode (`/webhooks/workflow/%ff%fe`) with
    // its own 400 before any route runs; the spec wants such a slug to be what it is, a name no
    // trigger has (404 `webhook_trigger_not_found`). Let it through undecoded: routing, the browser
    // guard and the handlers then all see the same raw path, and a parameter that does not decode
    // is taken as written (server/dispatch.ts), so each route answers as for any unknown name.
    allowMalformedURL: true,
    onError: (error, event) => jsonResponse(toH3ErrorAnswer(error, event, ctx.logger)),
  });
  app.use((event, next) => {
    try {
      checkHost(event.req.headers.get('host'), boundToLoopback, event.url.pathname);
      checkBrowserRequest(event.req.method, event.url.pathname, event.req.headers);
    } catch (error) {
      // Answered here, as a route answers: thrown from a middleware, h3 would log it as unhandled.
      return jsonResponse(toH3ErrorAnswer(error, event, ctx.logger));
    }
    return next();
  });
  for (const route of routes) app.on(route.method, toRouterPath(route.path), toHandler(route, ctx, invokeOptions));
  app.get('/', () => serveWebAsset('index.html', '/'));
  app.get('/assets/:name', (event) => serveWebAsset(event.context.params?.name ?? '', event.url.pathname));
  // A known path asked with another method is 405 with `Allow`, not a misleading 404. Registered
  // last as catch-alls: the router prefers a method-specific match.
  const methodsByPath = new Map<string, string[]>();
  for (const route of routes) methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
  for (const [path, methods] of methodsByPath) {
    app.all(toRouterPath(path), (event) => {
      const answer = unmatchedAnswer(event.req.method, event.url.pathname, methods);
      event.res.status = answer.status;
      event.res.headers.set('allow', answer.allow!);
      return answer.body;
    });
  }
  return app;
}
