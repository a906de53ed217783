// One dispatcher (src/server/dispatch.ts) for both doors: the h3 app over a real socket and the
// CLI's in-process API (src/runtime.ts `openLocalApi`). The same request gets the same answer
// from either, unknown paths and wrong methods included, and a handler reads the request headers
// the client sends whichever door it came through.
import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { closeContext, createContext } from '../../src/app/context.js';
import type { ApiRequest } from '../../src/client/transport.js';
import { createApp } from '../../src/server/app.js';
import { createRouteTable, invokeRoute } from '../../src/server/dispatch.js';
import { defineRoute } from '../../src/server/route.js';
import { loadSettings } from '../../src/shared/settings.js';
import { useBothDoors } from '../helpers/doors.js';
import { makeHome } from '../helpers/server.js';

const doors = useBothDoors();

async function overHttp({ method, path, body }: ApiRequest) {
  const response = await doors.server.fetch(path, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as unknown, allow: response.headers.get('allow') };
}

describe('the same answer over HTTP and in process', () => {
  it.each<ApiRequest>([
    { method: 'GET', path: '/api/no-such-route' },
    { method: 'DELETE', path: '/api/health' },
    { method: 'POST', path: '/api/workflows/runs' },
    { method: 'GET', path: '/api/workflows/runs?limit=nope' },
    { method: 'GET', path: '/api/workflows/runs/no-such-run' },
    { method: 'POST', path: '/api/workflows/validate', body: { nothing: true } },
  ])('$method $path', async (request) => {
    const http = await overHttp(request);
    const inProcess = await doors.local.send(request);
    expect(http.status).toBeGreaterThanOrEqual(400);
    expect(inProcess).toEqual({ status: http.status, body: http.body });
  });

  it('a literal segment beats a parameter, as in h3 (`/runs` is not a workflow named "runs")', async () => {
    const answer = await doors.local.send({ method: 'GET', path: '/api/workflows/runs' });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ runs: [], total: 0 });
  });
});

describe('headers reach the handler', () => {
  const whoAmI = defineRoute({
    method: 'GET',
    path: '/whoami',
    summary: 'echoes x-svc-actor',
    tag: 'test',
    responses: { 200: { description: 'the actor' } },
    handle: ({ headers }) => ({ actor: headers.get('x-svc-actor') }),
  });

  it('through the h3 app and through invokeRoute directly', async () => {
    const home = await makeHome();
    const ctx = await createContext({ settings: loadSettings({ SVC_HOME: home, SVC_LOG_LEVEL: 'warn' }), role: 'reader' });
    try {
      const app = createApp(ctx, [whoAmI]);
      const response = await app.request('/whoami', { headers: { 'x-svc-actor': 'ada' } });
      expect(await response.json()).toEqual({ actor: 'ada' });

      const match = createRouteTable([whoAmI]).find('GET', '/whoami');
      expect(match && 'route' in match).toBe(true);
      const answer = await invokeRoute(
        ctx,
        whoAmI,
        {
          method: 'GET',
          pathname: '/whoami',
          params: {},
          query: {},
          headers: new Headers({ 'x-svc-actor': 'grace' }),
          readJson: async () => undefined,
          readRaw: async () => new Uint8Array(),
        },
        { validateResponses: true },
      );
      expect(answer).toEqual({ status: 200, body: { actor: 'grace' } });
    } finally {
      await closeContext(ctx);
      await rm(home, { recursive: true, force: true });
    }
  });
});
