// The dashboard's files and the API's guard against other web pages, over plain HTTP.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { projectWithWorkflows, waitForStatus } from '../helpers/runs.js';

let server: TestServer;
let runId: string;

beforeAll(async () => {
  const dir = await projectWithWorkflows([{ name: 'gated', nodes: [{ id: 'gate', approval: { message: 'Ship it?' } }] }]);
  server = await startTestServer({ socket: true, cwd: dir });
  const started = await server.json('POST', '/api/workflows/gated/run', { message: 'hi', cwd: dir });
  runId = started.body.runId;
  await waitForStatus(server, runId, 'paused');
});
afterAll(async () => server?.stop());

describe('GET / and /assets', () => {
  it('serves the page with a strict Content-Security-Policy and its hashed assets', async () => {
    const page = await server.fetch('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await page.text();
    const script = /src="\/assets\/(app-[\w-]+\.js)"/.exec(html)?.[1];
    const style = /href="\/assets\/(app-[\w-]+\.css)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect(style).toBeDefined();
    expect(html).not.toMatch(/<script>|style=/);

    const js = await server.fetch(`/assets/${script}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toContain('immutable');
    const body = await js.arrayBuffer();
    // Small enough to ship: a few hundred KiB at most, all of it ours and the two libraries'.
    expect(body.byteLength).toBeLessThan(300 * 1024);
    const css = await server.fetch(`/assets/${style}`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('answers an unknown asset with a JSON 404, never a file outside the build', async () => {
    for (const path of ['/assets/nope.js', '/assets/..%2Fpackage.json', '/assets/%2e%2e%2f%2e%2e%2fpackage.json']) {
      const answer = await server.fetch(path);
      expect(answer.status).toBe(404);
      expect(((await answer.json()) as { error: string }).error).toBe('route_not_found');
    }
  });
});

describe('state-changing calls from other pages are refused', () => {
  const approve = (headers: Record<string, string>, body?: string) =>
    server.fetch(`/api/workflows/runs/${runId}/approve`, { method: 'POST', headers, ...(body === undefined ? {} : { body }) });

  it('refuses form encodings with 415, with or without a body', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain']) {
      const answer = await approve({ 'content-type': type }, type.startsWith('multipart') ? '--x--\r\n' : 'comment=yes');
      expect(answer.status).toBe(415);
      expect(await answer.json()).toMatchObject({ error: 'unsupported_media_type' });
      const empty = await server.fetch(`/api/workflows/runs/${runId}/cancel`, { method: 'POST', headers: { 'content-type': type } });
      expect(empty.status).toBe(415);
    }
  });

  it('refuses a call from another origin with 403, even as JSON', async () => {
    const answer = await approve({ 'content-type': 'application/json', origin: 'http://evil.example' }, '{}');
    expect(answer.status).toBe(403);
    expect(await answer.json()).toMatchObject({ error: 'cross_origin_refused' });
    const sameSite = await approve({ 'content-type': 'application/json', 'sec-fetch-site': 'same-site' }, '{}');
    expect(sameSite.status).toBe(403);
  });

  it("refuses a browser's bodiless call without a JSON content type (a no-cors fetch)", async () => {
    const answer = await server.fetch(`/api/workflows/runs/${runId}/cancel`, { method: 'POST', headers: { origin: server.url } });
    expect(answer.status).toBe(415);
  });

  it('sees through odd casing, parameters, look-alike origins and other methods', async () => {
    const cases: Array<[string, string, Record<string, string>, number]> = [
      ['POST', `/api/workflows/runs/${runId}/approve`, { 'content-type': 'Text/Plain' }, 415],
      ['PATCH', '/api/config', { 'content-type': 'text/plain; charset=application/json' }, 415],
      ['PUT', '/api/config', { 'content-type': 'multipart/form-data; boundary=application/json' }, 415],
      ['DELETE', `/api/workflows/runs/${runId}`, { 'content-type': 'application/x-www-form-urlencoded' }, 415],
      // Sandboxed frames, data: and file: pages send `Origin: null`.
      ['POST', `/api/workflows/runs/${runId}/approve`, { 'content-type': 'application/json', origin: 'null' }, 403],
      ['POST', `/api/workflows/runs/${runId}/approve`, { 'content-type': 'application/json', origin: `${server.url}.evil.example` }, 403],
      ['POST', `/api/workflows/runs/${runId}/approve`, { 'content-type': 'application/json', origin: `http://user@evil.example` }, 403],
      ['DELETE', `/api/workflows/runs/${runId}`, { 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' }, 403],
    ];
    for (const [method, path, headers, status] of cases) {
      const answer = await server.fetch(path, { method, headers, ...(method === 'DELETE' ? {} : { body: '{}' }) });
      expect(answer.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(status);
    }
  });

  it('grants no CORS, to a preflight or to a plain request', async () => {
    const preflight = await server.fetch(`/api/workflows/runs/${runId}/approve`, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    const plain = await server.fetch('/api/workflows', { headers: { origin: 'http://evil.example' } });
    for (const answer of [preflight, plain]) {
      expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
    expect(preflight.status).toBe(405);
  });

  it('leaves the run untouched by every refused call', async () => {
    const run = await server.json('GET', `/api/workflows/runs/${runId}`);
    expect(run.body.status).toBe('paused');
  });

  it("lets the page's own JSON calls and scripts without a body type through", async () => {
    const own = await server.fetch('/api/workflows/validate', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url, 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ definition: { name: 'x', nodes: [{ id: 'a', bash: 'true' }] } }),
    });
    expect(own.status).toBe(200);
    // curl -X POST …/cancel: no Origin, no body.
    const script = await server.fetch(`/api/workflows/runs/${runId}/abandon`, { method: 'POST' });
    expect(script.status).toBe(200);
    expect(((await script.json()) as { status: string }).status).toBe('abandoned');
  });

  it('leaves signed webhooks alone (their senders pick the content type)', async () => {
    const answer = await server.fetch('/webhooks/workflow/nothing-here', {
      method: 'POST',
      headers: { 'content-type': 'text/plain', origin: 'http://evil.example' },
      body: 'x',
    });
    expect(answer.status).toBe(404);
  });
});

describe('DNS rebinding', () => {
  // fetch() will not set Host; node:http will, as a rebinding browser would send it.
  const withHost = (host: string, path = '/api/health') =>
    new Promise<number>((resolve, reject) => {
      const url = new URL(path, server.url);
      const req = request({ host: url.hostname, port: url.port, path, headers: { host } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });

  it('answers only requests addressed to a loopback name', async () => {
    const port = new URL(server.url).port;
    expect(await withHost(`evil.example:${port}`)).toBe(403);
    expect(await withHost(`evil.example:${port}`, '/')).toBe(403);
    expect(await withHost(`127.0.0.1:${port}`)).toBe(200);
    expect(await withHost(`localhost:${port}`)).toBe(200);
    expect(await withHost(`[::1]:${port}`)).toBe(200);
    expect(await withHost(`svc.localhost:${port}`)).toBe(200);
  });

  it('lets signed webhooks in through a tunnel, which names its own public host', async () => {
    // ngrok and cloudflared pass the public name on in Host; the signature, not the name, is the check.
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL('/webhooks/workflow/nothing-here', server.url);
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { host: 'abc123.ngrok-free.app', 'content-type': 'application/json' },
        },
        (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    expect(answer.status).toBe(404);
    expect(answer.body).not.toContain('host_refused');
    const port = new URL(server.url).port;
    expect(await withHost(`abc123.ngrok-free.app:${port}`)).toBe(403);
  });
});
