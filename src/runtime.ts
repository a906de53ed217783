/**
 * The heavy runtime, as the CLI sees it: everything a command needs beyond commander and its own
 * small helpers — the store and domain (lowdb, yaml, zod), and the server (h3, listhen).
 *
 * The CLI imports these only through this file, and only when a command needs them. In a build,
 * `scripts/bundle.mjs` replaces `dist/runtime.js` with an esbuild bundle of it: loading a few
 * large files is much faster than loading hundreds of small ESM modules on Node 20, which has no
 * compile cache. The server half sits behind dynamic imports: the listener (listhen) is a chunk
 * that only `svc serve` loads, the h3 app one that loads for `svc openapi` and for event streams
 * followed in process. The JSON routes' tables are in the bundle itself: offline commands call
 * them in process (`openLocalApi`). Under vitest and tsx this file runs unbundled.
 *
 * The bundle has its own copies of our classes, so the CLI must not `instanceof` a domain error
 * against a class it imported from elsewhere: take the class from here, or use a brand check
 * such as `isApiError`.
 */

import type { AppContext } from './app/context.js';
import type { LocalApi } from './client/local-transport.js';
import type { ApiAnswer, ApiRequest } from './client/transport.js';
import type { RunningServer, StartOptions } from './server/listen.js';
import { Reply, type RouteSpec } from './server/route.js';
import { configRoutes } from './server/routes/config.js';
import { healthRoutes } from './server/routes/health.js';
import { runRoutes } from './server/routes/runs.js';
import { systemRoutes } from './server/routes/system.js';
import { commandRoutes, workflowRoutes } from './server/routes/workflows.js';
import { API_BODY_LIMIT, validate } from './server/validation.js';
import { ApiError, isApiError } from './shared/errors.js';
import type { Settings } from './shared/settings.js';

export { AssistantsPatchSchema } from './config/assistants.js';
export { StoreLockedError } from './store/lock.js';
export { toYamlText } from './catalog/project-files.js';
export { validateWorkflowSource } from './workflows/validate.js';
export { checkWorkflowFile, fileStem, isWorkflowFileName } from './workflows/workflow-file.js';
export { parse as parseYaml } from 'yaml';
export { ListenError } from './server/listen-error.js';

/** Opens the store and listens (`svc serve`); loads the server half on first use. */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const server = await import('./server/listen.js');
  return server.startServer(options);
}

/** The OpenAPI document built from the route table (`svc openapi`); loads the server half on first use. */
export async function openApiDocument(version: string): Promise<Record<string, unknown>> {
  const { openApiDocument: build } = await import('./server/routes/index.js');
  return build(version);
}

/**
 * The API in this process (the CLI's offline mode), over a context on the store in $SVC_HOME —
 * read-only, or holding the writer lock — with the same route table the server answers with.
 *
 * JSON calls go straight to the routes' handlers through the same validation (`validate`) and
 * error bodies, without h3: h3 imports srvx, which loads undici, and together they cost an
 * offline command ~50 ms (docs/ARCHITECTURE.md, "Start-up cost"). The h3 app itself loads only
 * for what needs it: event streams (a run followed in the foreground) and any path the direct
 * table does not know, so a new route works in process before it is listed here.
 *
 * Closing waits for the runs this process set going (they have no server to carry them on),
 * ends open streams, then closes the store and releases its lock.
 */
export async function openLocalApi(settings: Settings, writes: boolean): Promise<LocalApi> {
  const { createContext, closeContext } = await import('./app/context.js');
  const ctx = await createContext({ settings, lock: writes ? 'cli' : false });
  let app: Promise<{ fetch(request: Request): Response | Promise<Response> }> | undefined;
  const h3App = () =>
    (app ??= Promise.all([import('./server/app.js'), import('./server/routes/index.js')]).then(([{ createApp }, { routes }]) => createApp(ctx, routes)));
  const fetchApp = async (request: Request) => (await h3App()).fetch(request);
  return {
    async send(request) {
      const { route, params } = matchRoute(JSON_ROUTES, request.method, new URL(request.path, 'http://svc.local').pathname) ?? {};
      if (!route) return toAnswer(await fetchApp(toRequest(request)));
      return callRoute(ctx, route, params!, request);
    },
    fetch: fetchApp,
    async close() {
      await ctx.engine.whenIdle();
      for (const close of [...ctx.closers].reverse()) await Promise.resolve(close()).catch(() => {});
      await closeContext(ctx);
    },
  };
}

/**
 * The routes that answer JSON and need no h3: every table in server/routes/index.ts but the
 * streams. Imported statically: as chunks of their own they would cost an offline command more
 * files to load than their code.
 */
const JSON_ROUTES: readonly RouteSpec[] = [...healthRoutes, ...configRoutes, ...systemRoutes, ...workflowRoutes, ...commandRoutes, ...runRoutes];

/** The route for a path, as h3's router picks it: a literal segment beats a parameter (`/runs` before `/{name}`). */
function matchRoute(routes: readonly RouteSpec[], method: string, pathname: string): { route: RouteSpec; params: Record<string, string> } | undefined {
  const parts = pathname.split('/');
  let best: { route: RouteSpec; params: Record<string, string>; rank: string } | undefined;
  for (const route of routes) {
    const pattern = route.path.split('/');
    if (route.method !== method || route.rawBody || pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let rank = '';
    const fits = pattern.every((segment, i) => {
      const name = /^\{(.+)\}$/.exec(segment)?.[1];
      rank += name ? '1' : '0';
      if (!name) return segment === parts[i];
      if (!parts[i]) return false;
      try {
        params[name] = decodeURIComponent(parts[i]!);
      } catch {
        params[name] = parts[i]!;
      }
      return true;
    });
    if (fits && (!best || rank < best.rank)) best = { route, params, rank };
  }
  return best;
}

/** One route, as the server's handler wrapper runs it (server/app.ts): validate at the edge, call, shape the answer. */
async function callRoute(ctx: AppContext, route: RouteSpec, rawParams: Record<string, string>, request: ApiRequest): Promise<ApiAnswer> {
  try {
    const params = route.params ? validate(route.params, rawParams, 'path') : undefined;
    const query = route.query ? validate(route.query, Object.fromEntries(new URL(request.path, 'http://svc.local').searchParams), 'query') : undefined;
    if (request.body !== undefined && JSON.stringify(request.body).length > (route.bodyLimit ?? API_BODY_LIMIT)) {
      throw new ApiError(413, 'payload_too_large', 'The request body is too large.');
    }
    const body = route.body && !(request.body === undefined && route.bodyOptional) ? validate(route.body, request.body, 'body') : undefined;
    const result = await route.handle({ ctx, body, query, params, raw: undefined, event: undefined as never });
    const [status, value] = result instanceof Reply ? [result.status, result.body] : [200, result];
    // Through JSON, as over HTTP: the same shapes (no undefined members, dates as strings).
    return { status, body: value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown) };
  } catch (error) {
    if (isApiError(error)) return { status: error.status, body: error.toBody() };
    ctx.logger.error('http.internal_error', {
      method: request.method,
      path: request.path,
      error: error instanceof Error ? error.message : String(error),
      stack: error instanceof Error ? error.stack : undefined,
    });
    return { status: 500, body: { error: 'internal_error', message: 'An internal error occurred; details are in the server log.' } };
  }
}

function toRequest({ method, path, body }: ApiRequest): Request {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  // The routes read a body only when its length is announced, as node:http's client does.
  const headers: Record<string, string> = { accept: 'application/json' };
  if (payload !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) });
  return new Request(new URL(path, 'http://svc.local'), { method, headers, body: payload });
}

async function toAnswer(response: Response): Promise<ApiAnswer> {
  const text = await response.text();
  try {
    return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  } catch {
    return { status: response.status, body: text };
  }
}
