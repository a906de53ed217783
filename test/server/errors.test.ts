// Error answers of the HTTP edge (docs/contract.md, "Errors"): unknown routes, body caps (Content-Length and
// chunked), thrown bugs; every body exactly { error, message[, details] } and never a stack.
import { createServer, request, type Server } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toNodeHandler } from 'h3';
import { afterEach, describe, expect, it } from 'vitest';
import { closeContext, createContext, type AppContext } from '../../src/app/context.js';
import { createApp } from '../../src/server/app.js';
import { defineRoute } from '../../src/server/route.js';
import { loadSettings } from '../../src/shared/settings.js';
import { expectErrorBody, expectErrorResponse } from '../helpers/error-body.js';
import { killAllServes, spawnServe } from '../helpers/serve-process.js';
import { makeHome, startTestServer, type TestServer } from '../helpers/server.js';

const MiB = 1024 * 1024;

let server: TestServer | undefined;
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await server?.stop();
  server = undefined;
  await killAllServes();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * Streams an endless chunked body (no Content-Length) until the server answers, at most
 * `maxBytes`. Resolves with the answer and how much had been sent by then.
 */
function streamChunkedUntilAnswered(url: string, path: string, maxBytes: number): Promise<{ status: number; body: string; sent: number }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    let drained: (() => void) | undefined;
    const req = request(new URL(path, url), {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    req.on('response', (res) => {
      answered = true;
      drained?.();
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body, sent });
      });
      res.on('error', reject);
    });
    // Once the server has answered it may cut the connection while we still write: expected.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    void (async () => {
      req.write('{"claude":{"model":"');
      while (!answered && sent < maxBytes && !req.destroyed) {
        const more = req.write(chunk);
        sent += chunk.length;
        if (!more) await new Promise<void>((done) => ((drained = done), req.once('drain', done)));
      }
      if (!answered && !req.destroyed) req.end('"}}');
    })();
  });
}

describe('unknown routes', () => {
  // A known path with another method is 405 instead (method-not-allowed.test.ts).
  it('answer 404 route_not_found for any method and path', async () => {
    server = await startTestServer({ socket: true });
    for (const [method, path] of [
      ['GET', '/nope'],
      ['GET', '/api/definitely-not-a-route'],
      ['POST', '/api/definitely-not-a-route'],
      ['GET', '/api'],
      ['GET', '/health/db/extra'],
    ] as const) {
      const body = await expectErrorResponse(await server.fetch(path, { method }), 404, 'route_not_found');
      expect(body.message).toContain(path);
    }
  });
});

describe('body size cap of 1 MiB', () => {
  it('answers 413 payload_too_large for a body over 1 MiB with Content-Length', async () => {
    server = await startTestServer({ socket: true });
    const body = `{"claude":{"model":"${'a'.repeat(MiB)}"}}`;
    const response = await server.fetch('/api/config/assistants', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body });
    await expectErrorResponse(response, 413, 'payload_too_large');
    expect((await server.json('GET', '/api/config')).body.assistants.claude.model).toBeNull();
  });

  it('accepts a body of exactly 1 MiB (it is judged by its content, not refused for size)', async () => {
    server = await startTestServer({ socket: true });
    const prefix = '{"claude":{"model":"ok"},"padding":{"model":"';
    const suffix = '"}}';
    const exact = `${prefix}${'a'.repeat(MiB - prefix.length - suffix.length)}${suffix}`;
    expect(Buffer.byteLength(exact)).toBe(MiB);
    const send = (text: string) => server!.fetch('/api/config/assistants', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: text });
    // 'padding' is not an assistant: a 400, proving the body was read and parsed.
    const atLimit = await expectErrorResponse(await send(exact), 400, 'invalid_request');
    expect(atLimit.message).toMatch(/padding/);
    await expectErrorResponse(await send(`${exact} `), 413, 'payload_too_large');
  });

  it('answers 413 to an oversized CHUNKED body without reading it to the end, and keeps serving', async () => {
    server = await startTestServer({ socket: true });
    const limit = 64 * MiB;
    const answer = await streamChunkedUntilAnswered(server.url, '/api/config/assistants', limit);
    expect(answer.status).toBe(413);
    expectErrorBody(JSON.parse(answer.body), 'payload_too_large');
    // The server stopped at the cap instead of consuming the whole stream.
    expect(answer.sent).toBeLessThan(limit);
    expect((await server.json('GET', '/health')).body).toEqual({ status: 'ok' });
    expect((await server.json('PATCH', '/api/config/assistants', { claude: { model: 'after' } })).status).toBe(200);
  });

  it('a `svc serve` process survives an oversized chunked body and still answers', async () => {
    const home = await makeHome();
    cleanups.push(() => rm(home, { recursive: true, force: true }));
    const serve = await spawnServe({ home });
    for (let i = 0; i < 3; i++) {
      const answer = await streamChunkedUntilAnswered(serve.url, '/api/config/assistants', 64 * MiB);
      expect(answer.status).toBe(413);
      expectErrorBody(JSON.parse(answer.body), 'payload_too_large');
    }
    const health = await fetch(`${serve.url}/health`);
    expect(health.status).toBe(200);
    expect(serve.child.exitCode).toBeNull();
    expect(serve.stderr()).not.toMatch(/TypeError|Uncaught|ERR_/);
    expect(await serve.stop()).toEqual({ code: 0, signal: null });
  });
});

describe('a bug in a handler', () => {
  let httpServer: Server | undefined;
  let ctx: AppContext | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (httpServer ? httpServer.close(() => resolve()) : resolve()));
    httpServer = undefined;
    if (ctx) await closeContext(ctx);
    ctx = undefined;
  });

  it('answers 500 internal_error with no stack in the body; the stack goes to the log', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-test-'));
    cleanups.push(() => rm(home, { recursive: true, force: true }));
    ctx = await createContext({ settings: loadSettings({ SVC_HOME: home, SVC_LOG_LEVEL: 'info' }), role: 'server' });
    const boom = defineRoute({
      method: 'GET',
      path: '/api/test-boom',
      summary: 'throws',
      tag: 'test',
      responses: { 200: { description: 'never' } },
      handle: () => {
        throw new TypeError('secret internal detail at /srv/app.ts:12');
      },
    });
    const rejects = defineRoute({
      method: 'GET',
      path: '/api/test-reject',
      summary: 'rejects',
      tag: 'test',
      responses: { 200: { description: 'never' } },
      handle: async () => Promise.reject(new Error('async failure')),
    });
    httpServer = createServer(toNodeHandler(createApp(ctx, [boom, rejects])));
    await new Promise<void>((resolve) => httpServer!.listen(0, '127.0.0.1', resolve));
    const { port } = httpServer.address() as { port: number };

    for (const path of ['/api/test-boom', '/api/test-reject']) {
      const response = await fetch(`http://127.0.0.1:${port}${path}`);
      const text = await response.text();
      expect(response.status).toBe(500);
      expect(text).not.toContain('secret internal detail');
      expect(text).not.toContain('async failure');
      expectErrorBody(JSON.parse(text), 'internal_error');
    }
    // Unknown routes of this app are still the contract's 404.
    await expectErrorResponse(await fetch(`http://127.0.0.1:${port}/x`), 404, 'route_not_found');

    const log = (await readFile(join(home, 'logs', 'svc.log'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const entry = log.find((e) => e.event === 'http.internal_error' && e.path === '/api/test-boom');
    expect(entry).toBeDefined();
    expect(entry.level).toBe('error');
    expect(entry.error).toContain('secret internal detail');
    expect(entry.stack).toContain('TypeError');
  });
});
