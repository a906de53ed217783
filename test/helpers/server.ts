import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../../src/server/listen.js';
import { loadSettings } from '../../src/shared/settings.js';

export interface TestServer extends RunningServer {
  home: string;
  /** fetch() against the server: `await server.fetch('/api/health')`. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** JSON request helper: `await server.json('POST', '/api/x', {a: 1})` → { status, body }. */
  json<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** Closes the server and removes its home (unless `keepHome`). */
  stop(options?: { keepHome?: boolean }): Promise<void>;
}

export async function makeHome(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'svc-test-'));
}

/**
 * Starts the real server (store, routes, node:http) on an ephemeral loopback port with its own
 * temporary SVC_HOME. `env` adds or overrides environment variables for its settings. Every
 * answer is checked against the schema its route documents (SVC_VALIDATE_RESPONSES): a mismatch
 * answers 500 `internal_error` with the issues in `details`.
 */
export async function startTestServer(options: { env?: Record<string, string>; home?: string; cwd?: string } = {}): Promise<TestServer> {
  const home = options.home ?? (await makeHome());
  const settings = loadSettings({
    ...process.env,
    SVC_LOG_LEVEL: 'warn',
    SVC_VALIDATE_RESPONSES: '1',
    ...options.env,
    SVC_HOME: home,
    PORT: options.env?.PORT ?? '0',
  });
  const server = await startServer({ settings, cwd: options.cwd ?? process.cwd() });
  const fetchPath = (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init);
  return {
    ...server,
    home,
    fetch: fetchPath,
    async json(method, path, body) {
      const response = await fetchPath(path, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    async stop(stopOptions = {}) {
      await server.close();
      if (!stopOptions.keepHome && !options.home) await rm(home, { recursive: true, force: true });
    },
  };
}
