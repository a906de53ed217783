// Runs on PostgreSQL (docs/scaling.md): with SVC_DATABASE_URL the engine keeps runs, run events,
// benchmark summaries and conversation events in the database — event positions come from its one
// sequence, Last-Event-ID replay reads the events table, and a restarted server finds it all.
import { afterEach, expect, it } from 'vitest';
import { connect } from '../helpers/sse-client.js';
import type { TestServer } from '../helpers/server.js';
import { api, cleanupAll, FAKE_CLAUDE, getRun, projectWithWorkflows, startRun, startServer, waitForRun, type Json } from '../helpers/runs.js';
import { queryRows, usePostgres } from '../support/postgres.js';

const postgres = usePostgres();
afterEach(cleanupAll);

const CHAIN = {
  name: 'chain',
  nodes: [
    { id: 'a', bash: 'echo alpha' },
    { id: 'b', bash: 'echo beta', depends_on: ['a'] },
  ],
};

it('runs, their events and summaries live in the database, positioned by its sequence; a restarted server finds them', async () => {
  const url = await postgres.createDatabase();
  const project = await projectWithWorkflows([CHAIN]);
  const server: TestServer = await startServer({ env: { SVC_DATABASE_URL: url } });

  const runId = await startRun(server, 'chain', { message: 'hi', cwd: project });
  const run = await waitForRun(server, runId);
  expect(run.status).toBe('completed');
  const events = run.events as Json[];
  const rows = await queryRows<{ position: string; seq: number }>(url, 'SELECT position, seq FROM run_events WHERE run_id = $1 ORDER BY position', [runId]);
  expect(rows.map((row) => row.seq)).toEqual(events.map((e) => e.seq));
  // The SSE ids are the database's positions: one sequence for every server.
  expect(events.map((e) => e.pos)).toEqual(rows.map((row) => Number(row.position)));
  const [stored] = await queryRows<{ status: string }>(url, 'SELECT status FROM runs WHERE id = $1', [runId]);
  expect(stored).toEqual({ status: 'completed' });
  const [summary] = await queryRows<{ workflow: string }>(url, 'SELECT workflow FROM run_summaries WHERE run_id = $1', [runId]);
  expect(summary).toEqual({ workflow: 'chain' });

  // Last-Event-ID replay reads the events table.
  const third = events[2]!.pos as number;
  const replay = await connect(server, `/api/stream/__dashboard__?runId=${runId}`, { lastEventId: String(third) });
  await replay.until((got) => got.some((e) => e.type === 'run_completed'));
  expect(replay.events).toEqual(events.slice(3));

  const benchmark = await api(server, 'GET', '/api/runs/benchmark?workflow=chain');
  expect(benchmark.body.summary.runs).toBe(1);
  expect(benchmark.body.nodes.map((n: Json) => n.stepName)).toEqual(['a', 'b']);

  // A second server (another SVC_HOME) on the same database sees the run, its events and the list.
  await server.stop();
  const later = await startServer({ env: { SVC_DATABASE_URL: url } });
  expect((await getRun(later, runId)).events).toEqual(events);
  const listed = await api(later, 'GET', '/api/workflows/runs?workflow=chain');
  expect(listed.body.total).toBe(1);
  expect(listed.body.runs[0].id).toBe(runId);
  const second = await waitForRun(later, await startRun(later, 'chain', { message: 'again', cwd: project }));
  expect(Math.min(...(second.events as Json[]).map((e) => e.pos))).toBeGreaterThan(events.at(-1)!.pos);
});

it("a conversation's own events and its runs' events share the sequence: one order on its stream", async () => {
  const url = await postgres.createDatabase();
  const project = await projectWithWorkflows([CHAIN]);
  const server = await startServer({ env: { SVC_DATABASE_URL: url, SVC_CLAUDE_BIN: FAKE_CLAUDE } });
  const conversation = (await api(server, 'POST', '/api/conversations', {})).body;
  const stream = await connect(server, `/api/stream/${conversation.id}`);
  expect((await api(server, 'POST', `/api/conversations/${conversation.id}/message`, { message: 'hello' })).status).toBeLessThan(300);
  await startRun(server, 'chain', { message: 'x', cwd: project, conversationId: conversation.id });
  await stream.until((got) => got.some((e) => e.type === 'assistant_done') && got.some((e) => e.type === 'run_completed'));
  const own = await queryRows<{ position: string }>(url, 'SELECT position FROM conversation_events WHERE conversation_id = $1', [conversation.id]);
  expect(own.length).toBeGreaterThan(0);
  const positions = stream.events.map((e) => e.pos as number);
  expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  expect(new Set(positions).size).toBe(positions.length);
  for (const row of own) expect(positions).toContain(Number(row.position));

  // Replayed from the database, both kinds together, in the same order.
  const replay = await connect(server, `/api/stream/${conversation.id}`, { lastEventId: '0' });
  await replay.until((got) => got.length >= stream.events.length);
  expect(replay.events.map((e) => e.pos)).toEqual(positions);
});

it('/health/db is connected only while the database answers', async () => {
  const url = await postgres.createDatabase();
  const server = await startServer({ env: { SVC_DATABASE_URL: url } });
  expect(await api(server, 'GET', '/health/db')).toEqual({ status: 200, body: { status: 'ok', database: 'connected' } });
  const name = new URL(url).pathname.slice(1);
  const admin = postgres.server().url();
  // No new connections, and the server's are ended: the database no longer answers it.
  await queryRows(admin, `ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
  await queryRows(admin, 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
  const down = await api(server, 'GET', '/health/db');
  expect(down.status).toBe(503);
  expect(down.body).toMatchObject({ status: 'error', database: 'disconnected' });
  await queryRows(admin, `ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
  expect(await api(server, 'GET', '/health/db')).toEqual({ status: 200, body: { status: 'ok', database: 'connected' } });
});
