// A body trickled in a byte at a time held its socket for Node's 300 s request timeout (checked
// only every 30 s), so 300 slow webhook senders kept 300 sockets. A body not arrived whole within
// SVC_BODY_TIMEOUT_MS (30 s by default) is answered 408 `request_timeout` and its connection is
// closed (docs/contract.md, "HTTP"): here the setting is 1 s, and the socket must be seen closed
// long before Node's own check could have come.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings, SettingsError } from '../../src/shared/settings.js';
import { expectErrorBody } from '../helpers/error-body.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const BODY_TIMEOUT_MS = 1000;
/** Well under the 30 s between Node's own request-timeout checks: a socket open this long was not closed by us. */
const CLOSE_WAIT_MS = 15_000;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ socket: true, env: { SVC_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS) } });
});
afterAll(() => server.stop());

interface Trickled {
  status: number;
  body: string;
  bytesSent: number;
}

/**
 * Sends `head`, then one byte of `drip` every 200 ms until the server answers (never finishing the
 * body), and resolves once the server has closed the connection — or rejects if it is still open
 * after CLOSE_WAIT_MS.
 */
function trickle(head: string, drip: string): Promise<Trickled> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(Number(port), hostname);
    let data = '';
    let bytesSent = 0;
    let answered = false;
    const timer = setInterval(() => {
      if (!answered && socket.writable) socket.write(drip[bytesSent++ % drip.length]!);
    }, 200);
    const safety = setTimeout(() => {
      clearInterval(timer);
      socket.destroy();
      reject(new Error(`the connection was still open ${CLOSE_WAIT_MS} ms later; got: ${JSON.stringify(data)}`));
    }, CLOSE_WAIT_MS);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      // Stop writing at the first byte of the answer, as a real sender would see it.
      answered = true;
      data += chunk;
    });
    // Writes racing the close may fail (EPIPE, ECONNRESET); what was answered is what counts.
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(safety);
      const [headText = '', body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headText)?.[1] ?? 0), body, bytesSent });
    });
    socket.write(head);
  });
}

const expectTimedOut = (answer: Trickled) => {
  expect(answer.status).toBe(408);
  expectErrorBody(JSON.parse(answer.body), 'request_timeout');
  expect(JSON.parse(answer.body).message).toBe('The request body did not arrive whole within 1 s.');
  // Bytes kept coming: this is no idle connection that any keep-alive timer would have ended.
  expect(answer.bytesSent).toBeGreaterThan(1);
};

describe('a request body that does not arrive whole in time', () => {
  it('a webhook delivery with a Content-Length, trickled: 408 request_timeout, and the connection is closed', async () => {
    const answer = await trickle('POST /webhooks/workflow/push HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4096\r\n\r\n{', '"a": 1, ');
    expectTimedOut(answer);
  });

  it('an API JSON body sent chunked, trickled: the same', async () => {
    const head = 'POST /api/workflows/validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n';
    // Each drip is one whole one-byte chunk, so the body keeps arriving and never ends.
    const answer = await trickle(head, '1\r\n \r\n');
    expectTimedOut(answer);
  });

  it('many at once leave the server answering others, and whole bodies are read as before', async () => {
    const slow = Array.from({ length: 20 }, () => trickle('POST /webhooks/workflow/push HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n', 'x'));
    expect((await server.json('GET', '/health')).body).toEqual({ status: 'ok' });
    const valid = await server.json('POST', '/api/workflows/validate', { definition: { name: 'ok', description: 'd', nodes: [{ id: 'a', bash: 'true' }] } });
    expect(valid).toEqual({ status: 200, body: { valid: true } });
    for (const answer of await Promise.all(slow)) expectTimedOut(answer);
    expect((await server.json('GET', '/health')).status).toBe(200);
  });
});

describe('SVC_BODY_TIMEOUT_MS', () => {
  it('defaults to 30 s, takes a positive integer, and refuses anything else', () => {
    expect(loadSettings({}).bodyTimeoutMs).toBe(30_000);
    expect(loadSettings({ SVC_BODY_TIMEOUT_MS: '5000' }).bodyTimeoutMs).toBe(5000);
    expect(() => loadSettings({ SVC_BODY_TIMEOUT_MS: '0' })).toThrow(SettingsError);
    expect(() => loadSettings({ SVC_BODY_TIMEOUT_MS: 'soon' })).toThrow(SettingsError);
  });

  it("is Node's own request timeout too (instead of its 300 s), for a body no route reads", () => {
    expect(server.server.requestTimeout).toBe(BODY_TIMEOUT_MS);
  });
});
