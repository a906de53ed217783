/**
 * The heavy runtime, as the CLI sees it: everything a command needs beyond commander and its own
 * small helpers — the store and domain (lowdb, yaml, zod), and the server (h3, listhen).
 *
 * The CLI imports these only through this file, and only when a command needs them. In a build,
 * `scripts/bundle.mjs` replaces `dist/runtime.js` with an esbuild bundle of it: loading a few
 * large files is much faster than loading hundreds of small ESM modules on Node 20, which has no
 * compile cache. The server half sits behind dynamic imports: the listener (listhen) is a chunk
 * that only `svc serve` loads; the h3 app and its routes are chunks that commands load when they
 * call the API in process (no server running). Under vitest and tsx this file runs unbundled.
 *
 * The bundle has its own copies of our classes, so the CLI must not `instanceof` a domain error
 * against a class it imported from elsewhere: take the class from here, or use a brand check
 * such as `isApiError`.
 */

import type { Settings } from './shared/settings.js';
import type { LocalApi } from './client/local-transport.js';
import type { RunningServer, StartOptions } from './server/listen.js';

export { closeContext, createContext, type AppContext } from './app/context.js';
export { AssistantsPatchSchema } from './config/assistants.js';
export { ApiError } from './shared/errors.js';
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
 * The API in this process (the CLI's offline mode): the same h3 app and routes the server
 * answers with, over a context on the store in $SVC_HOME — read-only, or holding the writer lock.
 * Closing waits for the runs this process set going (they have no server to carry them on), then
 * closes the store and releases its lock.
 */
export async function openLocalApi(settings: Settings, writes: boolean): Promise<LocalApi> {
  const [{ createContext, closeContext }, { createApp }, { routes }] = await Promise.all([
    import('./app/context.js'),
    import('./server/app.js'),
    import('./server/routes/index.js'),
  ]);
  const ctx = await createContext({ settings, lock: writes ? 'cli' : false });
  const app = createApp(ctx, routes);
  return {
    fetch: async (request) => app.fetch(request),
    async close() {
      await ctx.engine.whenIdle();
      // Open streams (a follower's SSE) end with the context.
      for (const close of [...ctx.closers].reverse()) await close();
      await closeContext(ctx);
    },
  };
}
