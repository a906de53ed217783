// A path whose percent-encoding does not decode (`%ff%fe` is no UTF-8) is a name like any other
// that nothing has: h3 refused it with its own 400 before any route ran, where the spec's webhook
// table says an unknown slug is 404 `webhook_trigger_not_found` (docs/decisions.md, HTTP).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/error-body.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const send = async (method: string, path: string, headers: Record<string, string> = {}) => {
  const response = await server.fetch(path, { method, headers: { 'content-type': 'application/json', ...headers }, body: method === 'GET' ? undefined : '{}' });
  return { status: response.status, body: await response.json() };
};

describe('paths with invalid percent-encoding', () => {
  it('a webhook slug is an unknown slug: 404 webhook_trigger_not_found, and the delivery is in the history', async () => {
    const answer = await send('POST', '/webhooks/workflow/%ff%fe');
    expect(answer.status).toBe(404);
    expectErrorBody(answer.body, 'webhook_trigger_not_found');
    const { body } = await server.json('GET', '/api/webhooks/deliveries');
    expect(body.deliveries).toEqual([expect.objectContaining({ slug: '%ff%fe', outcome: 'webhook_trigger_not_found', status: 404 })]);
  });

  it.each([
    ['GET', '/api/workflows/runs/%ff%fe', 404, 'run_not_found'],
    ['DELETE', '/api/workflows/runs/%ff%fe', 404, 'run_not_found'],
    ['GET', '/api/conversations/%ff%fe', 404, 'conversation_not_found'],
    ['GET', '/api/workspaces/%ff%fe', 404, 'workspace_not_found'],
    // Not a workflow name at all, as `/api/workflows/Bad%20Name` is not.
    ['GET', '/api/workflows/%ff%fe', 400, 'invalid_request'],
    ['GET', '/webhooks/workflow/%ff%fe', 405, 'method_not_allowed'],
    ['GET', '/api/nothing/%ff%fe', 404, 'route_not_found'],
    ['GET', '/%ff%fe', 404, 'route_not_found'],
  ])('%s %s answers as any unknown name would: %i %s', async (method, path, status, code) => {
    const answer = await send(method, path);
    expect(answer.status).toBe(status);
    expectErrorBody(answer.body, code);
  });

  it('the browser guard sees the same path: a cross-site POST under /api/ is still refused', async () => {
    const answer = await send('POST', '/api/workflows/runs/%ff%fe/cancel', { 'sec-fetch-site': 'cross-site' });
    expect(answer.status).toBe(403);
    expectErrorBody(answer.body, 'cross_origin_refused');
  });
});
