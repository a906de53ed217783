// The run streams deliver everything: a dashboard client connected throughout gets every event of
// concurrent runs, in order, and a long history (3,000 events) is replayed in one connection.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { cleanupAll, type Json, projectWithWorkflows, startRun, startServer, waitFor, waitForRun } from '../helpers/runs.js';
import { connect } from '../helpers/sse-client.js';

const chatty = (id: string) => ({ id, bash: 'for i in $(seq 1 40); do echo "line $i"; done' });

let server: TestServer;
let cwd: string;

beforeAll(async () => {
  cwd = await projectWithWorkflows([
    { name: 'chatty', nodes: [chatty('a'), chatty('b'), chatty('c'), { id: 'd', bash: 'echo done', depends_on: ['a', 'b', 'c'] }] },
    // Lines 2 ms apart, so each is its own node_output event even on a loaded machine (a reader
    // that lags merges what waits in the pipe into one chunk, and the history came out shorter).
    { name: 'long', nodes: [{ id: 'many', bash: 'for i in $(seq 1 3000); do echo "$i"; sleep 0.002; done' }] },
  ]);
  server = await startServer();
});
afterAll(cleanupAll);

describe('streams', () => {
  it('a dashboard client connected throughout gets every event of concurrent runs, positions only growing', async () => {
    // Connected (the stream subscribes before it answers) before any run starts.
    const client = await connect(server, '/api/stream/__dashboard__');
    const ids = await Promise.all([1, 2, 3, 4].map(() => startRun(server, 'chatty', { message: '', cwd })));
    const runs = await Promise.all(ids.map((id) => waitForRun(server, id)));
    const stored = runs.flatMap((run) => run.events as Json[]);
    await waitFor(() => (client.events.filter((e) => ids.includes(e.runId)).length >= stored.length ? true : undefined), 20_000);
    const received = client.events.filter((e) => ids.includes(e.runId));
    expect(received.length).toBe(stored.length);
    const positions = received.map((e) => e.pos as number);
    expect(positions).toEqual([...positions].sort((x, y) => x - y));
    expect(new Set(positions).size).toBe(positions.length);
  });

  it('replays a long history (3,000 events) in one connection', async () => {
    const id = await startRun(server, 'long', { message: '', cwd });
    // 3,000 lines 2 ms apart take ~10 s alone, and twice that beside the rest of the suite.
    const run = await waitForRun(server, id, undefined, 60_000);
    // Lines merge into fewer events on a loaded machine; what matters is that the whole history,
    // however long, comes back in one connection, in order (a replay is never cut by the budget).
    expect(run.events.length).toBeGreaterThan(500);
    const client = await connect(server, `/api/stream/__dashboard__?runId=${id}&lastEventId=0`);
    await waitFor(() => (client.events.length >= run.events.length ? true : undefined), 20_000);
    expect(client.events.map((e) => e.seq)).toEqual(run.events.map((e: Json) => e.seq));
  }, 90_000);
});
