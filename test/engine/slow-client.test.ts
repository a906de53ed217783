// A client that stops reading must not slow the engine: its backlog is bounded and it is dropped
// (it can reconnect with Last-Event-ID); other clients and the run carry on. The stuck client is
// the real route served in-process by h3 (`app.request`) whose body is never read: exact
// backpressure, with no kernel socket buffers to absorb it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { routes } from '../../src/server/routes/index.js';
import { MAX_CLIENT_BACKLOG } from '../../src/server/stream-hub.js';
import type { TestServer } from '../helpers/server.js';
import { cleanupAll, makeProject, readLog, startRun, startServer, waitFor, waitForRun } from './helpers.js';

let server: TestServer;
let cwd: string;

beforeAll(async () => {
  // Lines 2 ms apart, so each is its own node_output event even on a loaded machine (a lagging
  // reader merges what waits in the pipe into one chunk, and the run came out under the backlog bound).
  cwd = await makeProject([{ name: 'chatter', nodes: [{ id: 'many', bash: 'for i in $(seq 1 3000); do echo "$i"; sleep 0.002; done' }] }]);
  server = await startServer();
});
afterAll(cleanupAll);

it('drops a client that stops reading, while a reading client and the run carry on', async () => {
  const app = createApp(server.ctx, routes);
  const stuck = await app.request('/api/stream/__dashboard__');
  expect(stuck.status).toBe(200);
  const reader = await fetch(`${server.url}/api/stream/__dashboard__`);
  let received = '';
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of reader.body!) received += decoder.decode(chunk as Uint8Array, { stream: true });
  })().catch(() => {});

  // Runs until the stuck client's backlog overflows: a loaded machine merges lines into fewer
  // node_output events, so how many one run makes is not fixed.
  let events = 0;
  let dropped: Record<string, unknown> | undefined;
  for (let round = 0; round < 5 && dropped === undefined; round++) {
    const id = await startRun(server, 'chatter', { message: '', cwd });
    const run = await waitForRun(server, id, undefined, 60_000);
    expect(run.status).toBe('completed');
    events += run.events.length;
    if (events > MAX_CLIENT_BACKLOG) dropped = await waitFor(() => readLog(server.home).find((entry) => entry.event === 'stream.slow_client_closed'), 20_000);
  }
  expect(events).toBeGreaterThan(MAX_CLIENT_BACKLOG);
  expect(dropped?.backlog).toBe(MAX_CLIENT_BACKLOG);
  // The reading client got every event of the runs.
  await waitFor(() => ((received.match(/"runId":"/g) ?? []).length >= events ? true : undefined), 20_000);
  await reader.body?.cancel().catch(() => {});
  await stuck.body?.cancel().catch(() => {});
}, 240_000);
