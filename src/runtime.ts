/**
 * The heavy runtime, as the CLI sees it: everything a command needs beyond commander and its own
 * small helpers — the store and domain (lowdb, yaml, zod), and the server (h3, listhen).
 *
 * The CLI imports these only through this file, and only when a command needs them. In a build,
 * `scripts/bundle.mjs` replaces `dist/runtime.js` with an esbuild bundle of it: loading a few
 * large files is much faster than loading hundreds of small ESM modules on Node 20, which has no
 * compile cache. The server's h3 half sits behind dynamic imports: the listener with the h3 app
 * (listhen, h3) is a chunk that only `svc serve` loads. The route table and its dispatcher need
 * no h3 and are in the bundle itself: offline commands call them in process (`openLocalApi`),
 * event streams included. Under vitest and tsx this file runs unbundled.
 *
 * The bundle has its own copies of our classes, so the CLI must not `instanceof` a domain error
 * against a class it imported from elsewhere: take the class from here, or use a brand check
 * such as `isDomainError`.
 */

import { join } from 'node:path';
import type { AppContext } from './app/context.js';
import type { LocalApi } from './client/local-transport.js';
import { requestHeaders, type ApiAnswer, type ApiRequest, type EventFeed, type FollowOptions } from './client/transport.js';
import type { StreamEvent } from './client/types.js';
import { createRouteTable, headersOf, invokeRoute, unmatchedAnswer, type RouteCall, type RouteTable } from './server/dispatch.js';
import type { RunningServer, StartOptions } from './server/listen.js';
import { openApiDocument as buildOpenApiDocument, routes } from './server/routes/index.js';
import { sourceFor } from './server/routes/streams.js';
import { openFeed } from './events/index.js';
import { DomainError } from './shared/errors.js';
import type { Settings } from './shared/settings.js';
import type { MigrationCounts } from './app/migrate-store.js';

export { AssistantsPatchSchema } from './config/index.js';
export { StoreLockedError } from './store/lock.js';
export { DatabaseUnavailableError } from './store/postgres/errors.js';
export { toYamlText } from './catalog/index.js';
export { assistantWarnings, validateWorkflowSource } from './workflows/index.js';
export { checkedWhole, checkWorkflowFile, fileStem, isWorkflowFileName } from './workflows/index.js';
export { parse as parseYaml } from 'yaml';
export { ListenError } from './server/listen-error.js';
/** `svc doctor`: whether agents can run in their sandbox on this machine (sandbox/doctor.ts). */
export { sandboxDoctor, type DoctorCheck, type DoctorReport } from './sandbox/index.js';
/** `svc doctor`: whether each acp assistant's command answers ACP's `initialize` (agents/acp-probe.ts). */
export { probeAcpAgent, type AcpProbe } from './agents/index.js';

/** Opens the store and listens (`svc serve`); loads the server half on first use. */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const server = await import('./server/listen.js');
  return server.startServer(options);
}

/** `svc migrate-store`: copies the file store in $SVC_HOME into an empty PostgreSQL database (app/migrate-store.ts). */
export async function migrateStore(settings: Settings, url: string): Promise<MigrationCounts> {
  const [{ migrateStore: migrate }, { createLogger }] = await Promise.all([import('./app/migrate-store.js'), import('./shared/logger.js')]);
  const logger = createLogger({ level: 'warn', file: join(settings.home, 'logs', 'svc.log') });
  return migrate({ home: settings.home, url, logger });
}

/** The OpenAPI document built from the route table (`svc openapi`); loads the server half on first use. */
export async function openApiDocument(version: string): Promise<Record<string, unknown>> {
  return buildOpenApiDocument(version);
}

/**
 * The API in this process (the CLI's offline mode), over a context on the store in $SVC_HOME —
 * read-only, or holding the writer lock — with the same route table the server answers with
 * (server/routes/index.ts) and the same dispatcher (server/dispatch.ts: validation, error bodies,
 * response checks), without h3: h3 imports srvx, which loads undici, and together they cost an
 * offline command ~50 ms (docs/ARCHITECTURE.md, "Start-up cost"). Event streams are followed on
 * the engine's bus through the stream route's own source selection and ordering (stream-feed.ts).
 *
 * Closing waits for the runs this process set going (they have no server to carry them on),
 * ends open streams, then closes the store and releases its lock.
 */
export async function openLocalApi(settings: Settings, writes: boolean): Promise<LocalApi> {
  const { createContext, closeContext } = await import('./app/context.js');
  const ctx = await createContext({ settings, role: writes ? 'cli' : 'reader' });
  return {
    send: (request) => sendLocal(ctx, (routeTable ??= createRouteTable(routes)), request),
    follow: (options) => followLocal(ctx, options),
    async close() {
      await ctx.engine.whenIdle();
      await ctx.conversations.orchestrator.whenIdle();
      for (const close of [...ctx.closers].reverse()) await Promise.resolve(close()).catch(() => {});
      await closeContext(ctx);
    },
  };
}

/** Built on the first request, once per process (a command may open the store read-only, then to write). */
let routeTable: RouteTable | undefined;

/** One JSON exchange with the routes, as a server would answer it over HTTP. */
async function sendLocal(ctx: AppContext, table: RouteTable, request: ApiRequest): Promise<ApiAnswer> {
  const url = new URL(request.path, 'http://svc.local');
  const match = table.find(request.method, url.pathname);
  if (!match || !('route' in match)) {
    const { status, body } = unmatchedAnswer(request.method, url.pathname, match?.allowed);
    return { status, body };
  }
  const payload = request.body === undefined ? undefined : JSON.stringify(request.body);
  const bytes = payload === undefined ? undefined : Buffer.from(payload);
  const readRaw = async (limit: number) => {
    if ((bytes?.length ?? 0) > limit) throw new DomainError('payload_too_large', `The request body exceeds the limit of ${limit} bytes.`);
    return new Uint8Array(bytes ?? []);
  };
  const call: RouteCall = {
    method: request.method,
    pathname: url.pathname,
    params: match.params,
    query: Object.fromEntries(url.searchParams),
    headers: headersOf(requestHeaders(request, bytes?.length)),
    readRaw,
    readJson: async (limit) => (await readRaw(limit), request.body),
  };
  const { status, body } = await invokeRoute(ctx, match.route, call, { validateResponses: ctx.settings.validateResponses });
  // Through JSON, as over HTTP: the same shapes (no undefined members, dates as strings).
  return { status, body: body === undefined ? undefined : (JSON.parse(JSON.stringify(body)) as unknown) };
}

/**
 * A stream followed on the engine's bus: the stream route's source (`sourceFor`) and the SSE
 * writer's ordering (`openFeed`). Events reach `onEvent` as they would over SSE (through JSON),
 * each in a microtask of its own, so a reader never runs inside the engine's publish. In process
 * nothing is lost: the feed ends when the reader closes it or when the API closes.
 */
async function followLocal(ctx: AppContext, options: FollowOptions): Promise<EventFeed> {
  let open = true;
  const feed = openFeed(ctx, {
    source: await sourceFor(ctx, options.stream, options.runId),
    after: options.after,
    write: (item) => {
      const raw = JSON.stringify(item);
      queueMicrotask(() => {
        if (open) options.onEvent(JSON.parse(raw) as StreamEvent, raw);
      });
    },
    // No budget: an in-process reader takes each event in a microtask of its own, so it is never behind.
  });
  const close = () => {
    open = false;
    feed.close();
    ctx.closers.delete(close);
  };
  ctx.closers.add(close);
  void feed.start();
  return { close };
}
