// A client that stops reading must not slow the engine or pin the server's memory: past its byte
// budget it is cut at once (docs/decisions.md, "Streams"), and reconnecting with Last-Event-ID it
// gets every event it missed, in order; other clients and the run carry on.
import { get, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { routes } from '../../src/server/routes/index.js';
import { CLIENT_BUFFER_BUDGET } from '../../src/server/stream-hub.js';
import type { TestServer } from '../helpers/server.js';
import { openStalledClient } from '../helpers/stalled-sse.js';
import { cleanupAll, getRun, type Json, projectWithWorkflows, onCleanup, readLog, startRun, startServer, waitFor, waitForRun } from '../helpers/runs.js';

let server: TestServer;
let cwd: string;

/** 24 nodes × (64 KiB of node_output + the same as node_completed's output): ~3 MiB of frames a run. */
const bulkyNodes = Array.from({ length: 24 }, (_, i) => ({ id: `n${i}`, bash: "head -c 65536 /dev/zero | tr '\\0' x" }));

beforeAll(async () => {
  cwd = await projectWithWorkflows([
    { name: 'bulky', nodes: bulkyNodes },
    { name: 'tiny', nodes: [{ id: 'one', bash: 'echo one' }] },
  ]);
  server = await startServer({ socket: true });
});
afterAll(cleanupAll);

const slowClientEntries = () => readLog(server.home).filter((entry) => entry.event === 'stream.slow_client_closed');

/** An SSE client over node:http that parses frames as they come and can stop reading (`res.pause()`). */
interface RawFollower {
  frames: Array<{ id: string; event: Json }>;
  response: IncomingMessage;
  /** Resolves when the connection is over, however it ended. */
  ended: Promise<void>;
}

function follow(path: string, lastEventId?: string): Promise<RawFollower> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: 'text/event-stream', ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) };
    const request = get(`${server.url}${path}`, { headers, agent: false }, (response) => {
      const frames: RawFollower['frames'] = [];
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
        let end: number;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const id = /^id: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (id !== undefined && data !== undefined) frames.push({ id, event: JSON.parse(data) as Json });
        }
      });
      const ended = new Promise<void>((done) => response.once('close', done));
      response.on('error', () => {}); // the server's reset of a slow client
      onCleanup(() => request.destroy());
      resolve({ frames, response, ended });
    });
    request.once('error', reject);
  });
}

it('cuts a client that stops reading at the byte budget; with Last-Event-ID it gets every event, in order', async () => {
  const first = await follow('/api/stream/__dashboard__');
  const tinyId = await startRun(server, 'tiny', { message: '', cwd });
  await waitFor(() => first.frames.some((frame) => frame.event.runId === tinyId && frame.event.type === 'run_completed'));
  // Stops reading, as `svc watch | less` does when paused: the bulky runs back up behind it.
  first.response.pause();
  const bulky: string[] = [];
  for (let round = 0; round < 6 && slowClientEntries().length === 0; round++) {
    const id = await startRun(server, 'bulky', { message: '', cwd });
    bulky.push(id);
    expect((await waitForRun(server, id, undefined, 60_000)).status).toBe('completed');
  }
  const [entry] = await waitFor(() => (slowClientEntries().length > 0 ? slowClientEntries() : undefined));
  expect(entry).toMatchObject({ level: 'warn', stream: '__dashboard__', limit: CLIENT_BUFFER_BUDGET });
  expect(entry!.bufferedBytes).toBeGreaterThan(CLIENT_BUFFER_BUDGET);

  // Reading again, it finds the connection cut (a reset: what the kernel still held for it is gone too)…
  first.response.resume();
  await first.ended;
  // …and reconnects from the last event it got whole.
  const second = await follow('/api/stream/__dashboard__', first.frames.at(-1)!.id);
  const lastRun = bulky.at(-1)!;
  await waitFor(() => second.frames.some((frame) => frame.event.runId === lastRun && frame.event.type === 'run_completed'), 30_000);

  const received = [...first.frames, ...second.frames];
  const positions = received.map((frame) => Number(frame.id));
  expect(positions).toEqual([...new Set(positions)].sort((a, b) => a - b));
  for (const runId of [tinyId, ...bulky]) {
    const stored = (await getRun(server, runId)).events as Json[];
    expect(received.filter((frame) => frame.event.runId === runId).map((frame) => frame.event)).toEqual(stored);
  }
}, 240_000);

it('drops a stuck client queue at once, while a reading client and the run carry on', async () => {
  // The real route served in process by h3 (`app.request`), whose body is never read: no socket,
  // no kernel buffers, so everything the stuck client misses waits in the stream's own queue.
  const app = createApp(server.ctx, routes);
  const stuck = await app.request('/api/stream/__dashboard__');
  expect(stuck.status).toBe(200);
  const reader = await follow('/api/stream/__dashboard__');
  const before = slowClientEntries().length;

  const id = await startRun(server, 'bulky', { message: '', cwd });
  expect((await waitForRun(server, id, undefined, 60_000)).status).toBe('completed');
  await waitFor(() => slowClientEntries().length > before);
  // The stuck body was failed, not left to drain: reading it now ends in an error.
  await expect(stuck.text()).rejects.toThrow();
  // The reading client got every event of the run.
  const stored = (await getRun(server, id)).events as Json[];
  await waitFor(() => reader.frames.some((frame) => frame.event.runId === id && frame.event.type === 'run_completed'));
  expect(reader.frames.filter((frame) => frame.event.runId === id).map((frame) => frame.event)).toEqual(stored);
}, 120_000);

it('replays a history larger than the budget in one connection: replay is paced by the reader', async () => {
  const id = await startRun(server, 'bulky', { message: '', cwd });
  const stored = (await waitForRun(server, id, undefined, 60_000)).events as Json[];
  const before = slowClientEntries().length;
  const replay = await follow(`/api/stream/__dashboard__?runId=${id}&lastEventId=0`);
  await waitFor(() => replay.frames.some((frame) => frame.event.type === 'run_completed'), 30_000);
  expect(replay.frames.map((frame) => frame.event)).toEqual(stored);
  expect(slowClientEntries()).toHaveLength(before);
}, 120_000);

it('keeps nothing of a client that was cut or that left: its subscription and its closer are gone', async () => {
  const held = () => ({ listeners: server.ctx.bus.listenerCount, closers: server.ctx.closers.size });
  const idle = held();
  const cut = await Promise.all(Array.from({ length: 5 }, () => openStalledClient(server.url, '/api/stream/__dashboard__')));
  const left = await Promise.all(Array.from({ length: 5 }, () => openStalledClient(server.url, '/api/stream/__dashboard__')));
  onCleanup(() => [...cut, ...left].forEach((client) => client.close()));
  expect(held()).toEqual({ listeners: idle.listeners + 10, closers: idle.closers + 10 });

  for (const client of left) client.close();
  await waitFor(
    () => held().closers === idle.closers + 5,
    10_000,
    () => `for the streams of the clients that left to close: ${JSON.stringify(held())}`,
  );
  // The kernel takes a few MiB for each connection before our side backs up: as many runs as that needs.
  const before = slowClientEntries().length;
  for (let round = 0; round < 6 && slowClientEntries().length < before + 5; round++) {
    const id = await startRun(server, 'bulky', { message: '', cwd });
    expect((await waitForRun(server, id, undefined, 60_000)).status).toBe('completed');
  }
  await waitFor(() => slowClientEntries().length >= before + 5, 20_000);
  await waitFor(
    () => (held().closers === idle.closers ? true : undefined),
    10_000,
    () => `for the cut streams to let go: ${JSON.stringify(held())}`,
  );
  expect(held()).toEqual(idle);
}, 120_000);
