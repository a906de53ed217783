// Regressions found in review: stream order across concurrent runs, long replays, an executor
// failure with siblings still running, processes a finished node left behind, stop races.

import { join } from 'node:path';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import {
  api,
  cleanupAll,
  getRun,
  type Json,
  projectWithWorkflows,
  onCleanup,
  readPidFile,
  startRun,
  startServer,
  waitFor,
  waitForDeath,
  waitForRun,
  waitForStatus,
} from '../helpers/runs.js';

let server: TestServer;
let cwd: string;

const chatty = (id: string) => ({ id, bash: 'for i in $(seq 1 40); do echo "line $i"; done' });

beforeAll(async () => {
  cwd = await projectWithWorkflows([
    { name: 'chatty', nodes: [chatty('a'), chatty('b'), chatty('c'), { id: 'd', bash: 'echo done', depends_on: ['a', 'b', 'c'] }] },
    // Lines 2 ms apart, so each is its own node_output event even on a loaded machine (a reader
    // that lags merges what waits in the pipe into one chunk, and the history came out shorter).
    { name: 'long', nodes: [{ id: 'many', bash: 'for i in $(seq 1 3000); do echo "$i"; sleep 0.002; done' }] },
    {
      name: 'broken-artifact',
      nodes: [
        // Occupies the path of its own output file: writing the output fails inside the executor.
        // It waits for `slow` to be under way first, or on a loaded machine the failure could stop
        // `slow` before it noted its pid, and the test would wait for a file that never comes.
        { id: 'fast', bash: 'while [ ! -s "$ARTIFACTS_DIR/slow.pid" ]; do sleep 0.05; done; mkdir "$ARTIFACTS_DIR/fast.out"; echo hi' },
        { id: 'slow', bash: 'sleep 60 & echo $! > "$ARTIFACTS_DIR/slow.pid"; wait' },
      ],
    },
    { name: 'leaves-daemon', nodes: [{ id: 'start', bash: 'sleep 77 & echo $! > "$ARTIFACTS_DIR/bg.pid"; echo started' }] },
    { name: 'stubborn', nodes: [{ id: 'hold', bash: 'trap \'\' TERM; sleep 30 & echo $! > "$ARTIFACTS_DIR/hold.pid"; wait; wait' }] },
  ]);
  server = await startServer();
});
afterAll(cleanupAll);

function collect(path: string, headers: Record<string, string> = {}): { events: Json[]; close(): void } {
  const events: Json[] = [];
  const source = new EventSource(`${server.url}${path}`, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }),
  });
  source.onmessage = (message) => events.push(JSON.parse(message.data));
  onCleanup(() => source.close());
  return { events, close: () => source.close() };
}

const artifact = (runId: string, name: string) => join(server.home, 'data', 'runs', runId, 'artifacts', name);

describe('streams', () => {
  it('a dashboard client connected throughout gets every event of concurrent runs, positions only growing', async () => {
    const client = collect('/api/stream/__dashboard__');
    await waitFor(() => true);
    await new Promise((r) => setTimeout(r, 200));
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
    const client = collect(`/api/stream/__dashboard__?runId=${id}&lastEventId=0`);
    await waitFor(() => (client.events.length >= run.events.length ? true : undefined), 20_000);
    expect(client.events.map((e) => e.seq)).toEqual(run.events.map((e: Json) => e.seq));
  }, 90_000);
});

describe('processes', () => {
  it("an executor failure stops the run's other nodes instead of leaving them unsupervised", async () => {
    const id = await startRun(server, 'broken-artifact', { message: '', cwd });
    const sleeper = await readPidFile(artifact(id, 'slow.pid'));
    const run = await waitForStatus(server, id, 'failed');
    await waitForDeath(sleeper);
    const after = await getRun(server, id);
    const lastType = after.events.at(-1).type;
    expect(lastType).toBe('run_failed');
    expect(after.nodes.slow.status).not.toBe('completed');
    expect(run.error).toBeTruthy();
  });

  it('what a node leaves running in its process group ends with the node', async () => {
    const id = await startRun(server, 'leaves-daemon', { message: '', cwd });
    const bg = await readPidFile(artifact(id, 'bg.pid'));
    const run = await waitForStatus(server, id, 'completed');
    expect(run.nodes.start.output).toBe('started');
    await waitForDeath(bg);
  });
});

describe('stop races', () => {
  it('abandon while a cancel is still stopping the run answers 409 with the final state', async () => {
    const id = await startRun(server, 'stubborn', { message: '', cwd });
    await readPidFile(artifact(id, 'hold.pid'));
    const cancel = api(server, 'POST', `/api/workflows/runs/${id}/cancel`);
    await new Promise((r) => setTimeout(r, 300));
    const abandon = await api(server, 'POST', `/api/workflows/runs/${id}/abandon`);
    expect((await cancel).status).toBe(200);
    expect(abandon.status).toBe(409);
    expect(abandon.body).toMatchObject({ error: 'invalid_run_state', details: { status: 'cancelled' } });
  }, 30_000);
});
