// Run events over SSE with a real client (`eventsource`): the dashboard stream, conversation
// streams, `?runId=`, and Last-Event-ID replay after a disconnect — every event exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { connect as connectTo } from '../helpers/sse-client.js';
import { api, cleanupAll, getRun, type Json, projectWithWorkflows, startRun, startServer, waitFor, waitForRun, waitForStatus } from '../helpers/runs.js';

let server: TestServer;
let project: string;

/** A client of this file's server. */
const connect = (path: string, options: { lastEventId?: string } = {}) => connectTo(server, path, options);

const ofRun = (events: Json[], runId: string) => events.filter((e) => e.runId === runId);
const ended = (runId: string) => (events: Json[]) => events.some((e) => e.runId === runId && (e.type === 'run_completed' || e.type === 'run_failed'));
const seqs = (events: Json[]) => events.map((e) => e.seq as number);
const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

beforeAll(async () => {
  project = await projectWithWorkflows([
    {
      name: 'chatty',
      nodes: [
        { id: 'a', bash: 'echo alpha' },
        { id: 'b', bash: 'echo beta; echo more >&2', depends_on: ['a'] },
        { id: 'c', bash: 'echo gamma', depends_on: ['a'] },
        { id: 'd', bash: 'echo $b.output $c.output', depends_on: ['b', 'c'] },
      ],
    },
    {
      // Prints a line every 100 ms, so a client can drop out in the middle.
      name: 'ticker',
      nodes: [
        { id: 'tick', bash: 'for i in $(seq 1 15); do echo "tick $i"; sleep 0.1; done' },
        { id: 'tock', bash: 'echo tock', depends_on: ['tick'] },
      ],
    },
  ]);
  server = await startServer({ socket: true });
});
afterAll(cleanupAll);

describe('__dashboard__', () => {
  it('delivers every event of a run, in seq order, to each of two clients; ids are stream positions', async () => {
    const [one, two] = await Promise.all([connect('/api/stream/__dashboard__'), connect('/api/stream/__dashboard__')]);
    const runId = await startRun(server, 'chatty', { message: '', cwd: project });
    await Promise.all([one.until(ended(runId)), two.until(ended(runId))]);
    const stored = (await getRun(server, runId)).events as Json[];
    expect(stored.length).toBeGreaterThanOrEqual(12);
    for (const client of [one, two]) {
      const mine = ofRun(client.events, runId);
      expect(seqs(mine)).toEqual(oneTo(stored.length));
      expect(mine).toEqual(stored);
      client.ids.forEach((id, i) => expect(id).toBe(String(client.events[i]!.pos)));
    }
    // Positions only grow.
    const positions = one.events.map((e) => e.pos as number);
    expect([...positions].sort((x, y) => x - y)).toEqual(positions);
    expect(new Set(positions).size).toBe(positions.length);
  });

  it('frees a client subscription when the client disconnects', async () => {
    const baseline = server.ctx.bus.listenerCount;
    const clients = await Promise.all([1, 2, 3].map(() => connect('/api/stream/__dashboard__')));
    expect(server.ctx.bus.listenerCount).toBe(baseline + 3);
    for (const client of clients) client.close();
    await waitFor(
      () => server.ctx.bus.listenerCount === baseline,
      10_000,
      () => `for the subscriptions to go (now ${server.ctx.bus.listenerCount})`,
    );
  });

  it('announces a deleted run', async () => {
    const runId = await startRun(server, 'chatty', { message: '', cwd: project });
    await waitForRun(server, runId);
    const client = await connect('/api/stream/__dashboard__');
    expect((await api(server, 'DELETE', `/api/workflows/runs/${runId}`)).status).toBe(200);
    await client.until((events) => events.some((e) => e.type === 'run_deleted' && e.runId === runId));
  });
});

describe('/api/stream/{conversationId}', () => {
  it("carries only the events of that conversation's runs", async () => {
    const client = await connect('/api/stream/conv-sse-a');
    const other = await startRun(server, 'chatty', { message: '', conversationId: 'conv-sse-b', cwd: project });
    const unlinked = await startRun(server, 'chatty', { message: '', cwd: project });
    await waitForRun(server, other);
    await waitForRun(server, unlinked);
    const mine = await startRun(server, 'chatty', { message: '', conversationId: 'conv-sse-a', cwd: project });
    await client.until(ended(mine));
    // The other runs finished before this one started, so their events would have arrived first.
    expect(new Set(client.events.map((e) => e.runId))).toEqual(new Set([mine]));
    expect(client.events.every((e) => e.conversationId === 'conv-sse-a')).toBe(true);
    expect(seqs(client.events)).toEqual(oneTo((await getRun(server, mine)).events.length));
  });

  it("a run's worker conversation (platformId) streams that run", async () => {
    const runId = await startRun(server, 'ticker', { message: '', cwd: project });
    const { platformId } = await getRun(server, runId);
    const client = await connect(`/api/stream/${encodeURIComponent(platformId)}?lastEventId=0`);
    await client.until(ended(runId));
    expect(new Set(client.events.map((e) => e.runId))).toEqual(new Set([runId]));
    expect(seqs(client.events)).toEqual(oneTo((await getRun(server, runId)).events.length));
  });
});

describe('?runId=', () => {
  it('narrows a stream to one run', async () => {
    const first = await startRun(server, 'ticker', { message: '', cwd: project });
    const client = await connect(`/api/stream/__dashboard__?runId=${first}&lastEventId=0`);
    const second = await startRun(server, 'chatty', { message: '', cwd: project });
    await waitForRun(server, second);
    await client.until(ended(first));
    expect(new Set(client.events.map((e) => e.runId))).toEqual(new Set([first]));
    expect(seqs(client.events)).toEqual(oneTo((await getRun(server, first)).events.length));
  });
});

describe('Last-Event-ID', () => {
  it('a client that disconnects mid-run and reconnects gets every event exactly once', async () => {
    const before = await connect('/api/stream/__dashboard__');
    const runId = await startRun(server, 'ticker', { message: '', cwd: project });
    await before.until((events) => ofRun(events, runId).filter((e) => e.type === 'node_output').length >= 3);
    before.close();
    const lastId = before.ids.at(-1)!;
    const seen = ofRun(before.events, runId);
    // Let the run move on while nobody listens.
    await waitForRun(server, runId, (run) => run.events.length >= seen.length + 4);

    const after = await connect('/api/stream/__dashboard__', { lastEventId: lastId });
    await after.until(ended(runId));
    const replayed = ofRun(after.events, runId);
    expect(replayed[0]!.seq).toBe(seen.at(-1)!.seq + 1);
    const union = [...seen, ...replayed];
    const stored = (await waitForStatus(server, runId, 'completed')).events as Json[];
    expect(seqs(union)).toEqual(oneTo(stored.length));
    expect(union).toEqual(stored);
    // Nothing at or before the Last-Event-ID came again.
    for (const id of after.ids) expect(Number(id)).toBeGreaterThan(Number(lastId));
  });

  it('`?lastEventId=` replays on a first connect, for clients that cannot set headers', async () => {
    const runId = await startRun(server, 'chatty', { message: '', cwd: project });
    const stored = (await waitForRun(server, runId)).events as Json[];
    const middle = stored[4]!;
    const client = await connect(`/api/stream/__dashboard__?runId=${runId}&lastEventId=${middle.pos}`);
    await client.until(ended(runId));
    expect(seqs(client.events)).toEqual(stored.slice(5).map((e) => e.seq));
  });
});
