// Requests so malformed that Node's HTTP parser rejects them before any route runs still get the
// contract's JSON error body (docs/contract.md, "Errors": every non-2xx answer is JSON, never an empty or HTML page).
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/error-body.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** Sends raw bytes and resolves with what came back before the server closed the connection. */
function rawRequest(url: string, bytes: string): Promise<{ status: number; headers: string; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('error', reject);
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer')));
    socket.on('close', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head, body });
    });
    socket.end(bytes);
  });
}

describe('malformed HTTP', () => {
  it('a bad Content-Length is a 400 with a JSON error body', async () => {
    server = await startTestServer({ socket: true });
    const answer = await rawRequest(
      server.url,
      'PATCH /api/config/assistants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}',
    );
    expect(answer.status).toBe(400);
    expect(answer.headers).toMatch(/content-type: application\/json/i);
    expectErrorBody(JSON.parse(answer.body), 'invalid_request');
  });

  it('headers over the size limit are a 431 with a JSON error body', async () => {
    server = await startTestServer({ socket: true });
    const answer = await rawRequest(server.url, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
    expect(answer.status).toBe(431);
    expectErrorBody(JSON.parse(answer.body), 'request_header_too_large');
  });

  it('the server keeps answering afterwards', async () => {
    server = await startTestServer({ socket: true });
    await rawRequest(server.url, 'GARBAGE\r\n\r\n');
    expect((await server.json('GET', '/health')).body).toEqual({ status: 'ok' });
  });
});
