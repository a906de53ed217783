import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

it('a known path asked with another method is 405 naming the allowed ones', async () => {
  for (const [method, path, allowed] of [
    ['POST', '/health', 'GET'],
    ['DELETE', '/api/config', 'GET'],
    ['PUT', '/api/config/assistants', 'PATCH'],
  ] as const) {
    const response = await server.fetch(path, { method });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe(allowed);
    expect(await response.json()).toMatchObject({ error: 'method_not_allowed' });
  }
});

it('an unknown path stays 404 route_not_found', async () => {
  const response = await server.fetch('/api/nothing-here', { method: 'POST' });
  expect(response.status).toBe(404);
  expect(((await response.json()) as { error: string }).error).toBe('route_not_found');
});
