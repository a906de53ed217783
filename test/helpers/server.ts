import type { Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeContext, createContext, type AppContext } from '../../src/app/context.js';
import { createApp } from '../../src/server/app.js';
import { startServer, type RunningServer } from '../../src/server/listen.js';
import { routes } from '../../src/server/routes/index.js';
import { loadSettings } from '../../src/shared/settings.js';

export interface TestServer extends RunningServer {
  home: string;
  /** Whether it listens on a socket (`url`, `port` and `server` exist only then). */
  socket: boolean;
  /** A request to the server: `await server.fetch('/api/health')`. In process unless it has a socket. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** JSON request helper: `await server.json('POST', '/api/x', {a: 1})` → { status, body }. */
  json<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** Closes the server and removes its home (unless `keepHome`). */
  stop(options?: { keepHome?: boolean }): Promise<void>;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  home?: string;
  cwd?: string;
  /**
   * Listen on an ephemeral loopback port, as `svc serve` does. Only what needs a socket asks for
   * one: SSE clients, the CLI or a browser pointed at `url`, raw HTTP, agents calling back. Without
   * it the server is the same (store, engine, h3 app with every route) and answers `fetch`/`json`
   * in this process, through the h3 app's own `fetch`.
   */
  socket?: boolean;
}

export async function makeHome(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'svc-test-'));
}

/** The origin an in-process request is addressed to (a loopback name: the host check lets it by). */
const IN_PROCESS_ORIGIN = 'http://127.0.0.1';

function noSocket(what: string): never {
  throw new Error(`This test server has no socket, so no ${what}: start it with { socket: true } (test/helpers/server.ts).`);
}

/** The real server's context and h3 app, without listening; closed as `svc serve` closes (listen.ts). */
async function openInProcess(settings: ReturnType<typeof loadSettings>): Promise<{ ctx: AppContext; fetch: TestServer['fetch']; close(): Promise<void> }> {
  const ctx = await createContext({ settings, role: 'server' });
  const app = createApp(ctx, routes);
  let closing: Promise<void> | undefined;
  return {
    ctx,
    fetch: async (path, init) => {
      // The headers a client on the loopback socket sends with them (fetch adds them on the wire).
      const headers = new Headers(init?.headers);
      if (!headers.has('host')) headers.set('host', '127.0.0.1');
      const body = init?.body;
      if (body !== undefined && body !== null && !headers.has('content-length') && !headers.has('transfer-encoding')) {
        if (typeof body === 'string') headers.set('content-length', String(Buffer.byteLength(body)));
        else if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) headers.set('content-length', String(body.byteLength));
        else if (body instanceof ReadableStream) headers.set('transfer-encoding', 'chunked');
      }
      return app.fetch(
        new Request(`${IN_PROCESS_ORIGIN}${path}`, { ...init, headers, ...(body instanceof ReadableStream ? { duplex: 'half' } : {}) } as RequestInit),
      );
    },
    close: () =>
      (closing ??= (async () => {
        ctx.logger.info('server.stopping', {});
        for (const closer of [...ctx.closers].reverse()) await Promise.resolve(closer()).catch(() => {});
        await closeContext(ctx);
      })()),
  };
}

/**
 * Starts the real server (store, engine, routes) with its own temporary SVC_HOME: in this process
 * by default, or on an ephemeral loopback port (`socket: true`). `env` adds or overrides
 * environment variables for its settings. Every answer is checked against the schema its route
 * documents (SVC_VALIDATE_RESPONSES): a mismatch answers 500 `internal_error` with the issues in `details`.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const home = options.home ?? (await makeHome());
  const settings = loadSettings({
    ...process.env,
    SVC_LOG_LEVEL: 'warn',
    SVC_VALIDATE_RESPONSES: '1',
    ...options.env,
    SVC_HOME: home,
    PORT: options.env?.PORT ?? '0',
  });
  let door: { ctx: AppContext; fetch: TestServer['fetch']; close(): Promise<void>; url?: string; port?: number; server?: Server };
  if (options.socket) {
    const server = await startServer({ settings, cwd: options.cwd ?? process.cwd() });
    door = { ...server, fetch: (path, init) => fetch(`${server.url}${path}`, init) };
  } else {
    door = await openInProcess(settings);
  }
  const json: TestServer['json'] = async (method, path, body) => {
    const response = await door.fetch(path, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  return {
    get url() {
      return door.url ?? noSocket('url');
    },
    get port() {
      return door.port ?? noSocket('port');
    },
    get server() {
      return door.server ?? noSocket('node:http server');
    },
    ctx: door.ctx,
    home,
    socket: Boolean(options.socket),
    fetch: door.fetch,
    json,
    close: door.close,
    async stop(stopOptions = {}) {
      await door.close();
      if (!stopOptions.keepHome && !options.home) await rm(home, { recursive: true, force: true });
    },
  };
}
