// Hostile input: at least 2,000 malformed requests to the webhook endpoint over loopback (random
// bytes, bad JSON, wrong key types, huge headers, truncated bodies, wrong content types, odd
// slugs and signatures), a bounded number at a time. Never a 5xx but the 503 of a missing secret,
// never a crash, and memory steady.
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import type { Project } from '../helpers/workflow-project.js';
import { makeHookProject, registerTriggers, SECRET, sign } from '../helpers/webhooks.js';

let server: TestServer;
let project: Project;
beforeAll(async () => {
  project = await makeHookProject();
  server = await startTestServer({ socket: true, env: { PUSH_SECRET: SECRET } });
  await registerTriggers(server, project.dir);
});
afterAll(async () => {
  await server?.stop();
  await project?.remove();
});

/** Sends raw bytes over one connection; resolves to the answer's status, or null when the server closed without one. */
function rawExchange(port: number, bytes: Buffer, options: { halfClose?: boolean } = {}): Promise<number | null> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let head = '';
    const done = (status: number | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(status);
    };
    const timer = setTimeout(() => done(null), 3000);
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(head);
      if (match) done(Number(match[1]));
    });
    socket.on('error', () => done(null));
    socket.on('close', () => done(null));
    socket.write(bytes, () => {
      if (options.halfClose) socket.end();
    });
  });
}

const request = (slug: string, body: Buffer, headers: Record<string, string>) => {
  const lines = [`POST /webhooks/workflow/${slug} HTTP/1.1`, 'host: 127.0.0.1', 'connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
};

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;
const WRONG_KEYS = [null, {}, { id: 1 }, [], [1], '', undefined];
const CONTENT_TYPES = [
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '',
  'application/json; charset=latin1',
];
const SLUGS = ['on-push', 'no-secret', 'main-only', 'nobody', '%00', '..%2f..%2fetc', 'a'.repeat(300), '%E2%82', 'ON-PUSH'];

/** One malformed request of kind `kind`; returns the bytes and whether a 503 is allowed (the slug's secret is unset). */
function malformed(kind: number): { bytes: Buffer; halfClose?: boolean } {
  const slug = pick(SLUGS);
  const type = { 'content-type': pick(CONTENT_TYPES) };
  const withLength = (body: Buffer, headers: Record<string, string>) => request(slug, body, { ...headers, 'content-length': String(body.length) });
  switch (kind) {
    case 0: {
      const body = randomBytes(Math.floor(Math.random() * 2048));
      return { bytes: withLength(body, { ...type, 'x-svc-signature-256': pick([sign(body), `sha256=${randomBytes(32).toString('hex')}`, 'garbage']) }) };
    }
    case 1: {
      const text = JSON.stringify({ event: 'push', delivery_id: 'k', nested: { a: [1, 2, 3] } });
      const body = Buffer.from(text.slice(0, Math.floor(Math.random() * text.length)));
      return { bytes: withLength(body, { ...type, 'x-svc-signature-256': sign(body) }) };
    }
    case 2: {
      const key = pick(WRONG_KEYS);
      const body = Buffer.from(
        JSON.stringify({ event: pick(['push', 'other', 1, null]), ...(key === undefined ? {} : { delivery_id: key }), ref: 'refs/heads/main', forced: false }),
      );
      return { bytes: withLength(body, { ...type, 'x-svc-signature-256': sign(body) }) };
    }
    case 3: {
      const body = Buffer.from('{"event":"other"}');
      return { bytes: withLength(body, { ...type, 'x-junk': 'x'.repeat(20_000 + Math.floor(Math.random() * 60_000)) }) };
    }
    case 4: {
      const body = Buffer.from(JSON.stringify({ event: 'push', delivery_id: 'cut', pad: 'p'.repeat(500) }));
      const cut = body.subarray(0, Math.floor(Math.random() * body.length));
      return { bytes: request(slug, cut, { ...type, 'content-length': String(body.length), 'x-svc-signature-256': sign(body) }), halfClose: true };
    }
    case 5: {
      const body = Buffer.from('{"event":"other","delivery_id":"x"}');
      return {
        bytes: request(slug, body, { ...type, 'content-length': String(300 * 1024 + Math.floor(Math.random() * 1e9)), 'x-svc-signature-256': sign(body) }),
        halfClose: true,
      };
    }
    case 6: {
      // Chunked framing, sometimes broken, sometimes cut off.
      const chunks = `5\r\n{"eve\r\n${pick(['zz', '3', '-1', 'ffffffffffffffff'])}\r\nnt"}\r\n0\r\n\r\n`;
      return {
        bytes: request(slug, Buffer.from(chunks.slice(0, 5 + Math.floor(Math.random() * (chunks.length - 5)))), { ...type, 'transfer-encoding': 'chunked' }),
        halfClose: true,
      };
    }
    default: {
      const body = Buffer.from(JSON.stringify({ event: 'push', delivery_id: randomBytes(4).toString('hex') }));
      const header = pick([
        '',
        'sha256=',
        `sha256=${'g'.repeat(64)}`,
        `SHA256=${sign(body).slice(7)}`,
        `sha256=${sign(body).slice(7)} trailing`,
        '\t',
        'sha256=' + '0'.repeat(10_000),
      ]);
      return { bytes: withLength(body, { ...type, 'x-svc-signature-256': header }) };
    }
  }
}

function gc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('the webhook endpoint under hostile input', () => {
  it('2,400 malformed requests: no 5xx but a missing secret’s 503, no crash, memory steady', { timeout: 240_000 }, async () => {
    const port = Number(new URL(server.url).port);
    const statuses = new Map<number | null, number>();
    const unexpected: string[] = [];
    const round = async (count: number) => {
      const concurrency = 16;
      let next = 0;
      const worker = async () => {
        while (next < count) {
          const n = next++;
          const { bytes, halfClose } = malformed(n % 8);
          const status = await rawExchange(port, bytes, { halfClose });
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          const head = bytes.subarray(0, 80).toString('latin1');
          if (status !== null && status >= 500 && !(status === 503 && head.includes('/no-secret '))) unexpected.push(`${status} for ${head}`);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    };
    await round(400); // warm-up
    gc();
    const before = process.memoryUsage().heapUsed;
    await round(2000);
    gc();
    const after = process.memoryUsage().heapUsed;
    expect(unexpected).toEqual([]);
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(2400);
    // Most requests got an answer (the others were cut off by their sender on purpose).
    expect([...statuses.entries()].filter(([s]) => s !== null).reduce((a, [, n]) => a + n, 0)).toBeGreaterThan(1500);
    expect(after - before).toBeLessThan(40 * 1024 * 1024);
    // Still alive, and no run was started by any of it.
    expect((await server.json('GET', '/health')).status).toBe(200);
    expect((await server.ctx.engine.list({ workflow: 'hook' })).total).toBe(0);
    const logged = await server.json('GET', '/api/webhooks/deliveries?limit=1000');
    expect(logged.body.deliveries.every((d: { outcome: string }) => d.outcome !== 'accepted')).toBe(true);
  });
});
