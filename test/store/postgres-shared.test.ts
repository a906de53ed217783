// Two servers on one PostgreSQL database (two pools, as two `svc serve` processes would hold): the
// unique keys and single-statement updates the repositories rely on hold across them, not only
// within one process.
import { afterEach, beforeEach, expect, it } from 'vitest';
import pg from 'pg';
import { postgresConversationRepositories } from '../../src/conversations/postgres-repository.js';
import { postgresRunRepository } from '../../src/runs/storage/postgres-run-repository.js';
import { postgresScheduleRepository } from '../../src/schedules/postgres-repository.js';
import { silentLogger } from '../../src/shared/logger.js';
import { openPostgres, type PostgresDatabase } from '../../src/store/postgres/index.js';
import { postgresWebhookRepositories } from '../../src/webhooks/postgres-repository.js';
import { postgresWorkspaceRepositories } from '../../src/workspaces/postgres-repository.js';
import { usePostgres } from '../support/postgres.js';
import { workspace } from './contract/workspaces.js';

const postgres = usePostgres();
let servers: [PostgresDatabase, PostgresDatabase];
let url: string;
beforeEach(async () => {
  url = await postgres.createDatabase();
  servers = (await Promise.all([openPostgres({ url, logger: silentLogger }), openPostgres({ url, logger: silentLogger })])) as [
    PostgresDatabase,
    PostgresDatabase,
  ];
});
afterEach(async () => {
  await Promise.all(servers.map((db) => db.close()));
});

/** Calls spread over the two servers in turn. */
const spread = <T>(count: number, call: (db: PostgresDatabase, i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: count }, (_, i) => call(servers[i % 2]!, i)));

it('20 identical webhook deliveries split across two servers make one dedupe record', async () => {
  const results = await spread(20, (db, i) =>
    postgresWebhookRepositories(db).dedupe.insertIfAbsent(
      { id: 'key', slug: 's', key: 'k', bodyHash: 'h', runId: `run_${i}`, state: 'reserved', firstReceivedAt: new Date(0).toISOString(), expiresAt: 10_000 },
      0,
    ),
  );
  expect(results.filter((r) => r.inserted)).toHaveLength(1);
  expect(new Set(results.map((r) => (r.inserted ? r.record.runId : r.existing.runId))).size).toBe(1);
});

it('one repository registered on two servers at once is one workspace', async () => {
  const results = await spread(10, (db, i) =>
    postgresWorkspaceRepositories(db).workspaces.insertIfAbsent(workspace(i + 1, { source_key: 'https://example.test/r.git' })),
  );
  expect(results.filter((r) => r.inserted)).toHaveLength(1);
  expect((await postgresWorkspaceRepositories(servers[0]).workspaces.list()).total).toBe(1);
});

it('messages appended to one conversation from two servers take distinct places, and pending lists lose none', async () => {
  const appended = await spread(30, (db, i) =>
    postgresConversationRepositories(db).messages.append('conv_a', { role: 'user', content: `m${i}`, created_at: new Date(0).toISOString(), metadata: {} }),
  );
  expect(appended.map((m) => m.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  const page = await postgresConversationRepositories(servers[1]).messages.page('conv_a', { limit: 100 });
  expect(page?.messages).toHaveLength(30);

  const [a, b] = servers.map((db) => postgresConversationRepositories(db).conversations);
  await a!.insert({
    id: 'conv_a',
    platform_conversation_id: 'chat_a',
    workspace_id: null,
    title: null,
    created_at: new Date(0).toISOString(),
    updated_at: new Date(0).toISOString(),
    deleted_at: null,
    run_id: null,
    assistant: null,
    pending_message_ids: [],
  });
  await spread(20, (_db, i) => (i % 2 ? a! : b!).addPending('conv_a', `msg_${i}`));
  expect((await a!.get('conv_a'))?.pending_message_ids).toHaveLength(20);
});

it('sends accepted on two servers join the pending list in the order of their places, and hold the conversation for the first sender', async () => {
  const [a, b] = servers.map((db, i) => postgresConversationRepositories(db, `srv_${i}`));
  await a!.conversations.insert({
    id: 'conv_a',
    platform_conversation_id: 'chat_a',
    workspace_id: null,
    title: null,
    created_at: new Date(0).toISOString(),
    updated_at: new Date(0).toISOString(),
    deleted_at: null,
    run_id: null,
    assistant: null,
    pending_message_ids: [],
  });
  const accepted = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a! : b!).accept('conv_a')));
  const bySeq = [...accepted].sort((x, y) => x.seq - y.seq);
  expect(bySeq.map((m) => m.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  // Answered from the head of the list: the list is in place order.
  expect((await b!.conversations.get('conv_a'))?.pending_message_ids).toEqual(bySeq.map((m) => m.id));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ answering_server: string }>("SELECT answering_server FROM conversations WHERE id = 'conv_a'");
  await client.end();
  expect(['srv_0', 'srv_1']).toContain(rows[0]!.answering_server);
});

const runEvent = (runId: string, seq: number) => ({
  type: 'node_output' as const,
  at: new Date(0).toISOString(),
  runId,
  seq,
  conversationId: 'conv_a',
  platformId: `wkr_${runId}`,
  workflow: 'build',
  nodeId: 'n1',
  stream: 'stdout' as const,
  text: `line ${seq}`,
});

it('run events written by two servers share one position order, and either server replays all of them', async () => {
  const stored = await spread(40, (db, i) => postgresRunRepository(db).appendEvent(runEvent(`run_${i % 4}`, Math.floor(i / 4) + 1)));
  expect(new Set(stored.map((e) => e.pos)).size).toBe(40);
  for (const db of servers) {
    const replayed = await postgresRunRepository(db).eventsAfter(0, { linkedTo: ['conv_a'] });
    expect(replayed.map((e) => e.pos)).toEqual(stored.map((e) => e.pos).sort((a, b) => a - b));
  }
});

it('replay holds back events committed after an earlier position that is still uncommitted, so a cursor never skips one', async () => {
  const runs = postgresRunRepository(servers[0]);
  const first = await runs.appendEvent(runEvent('run_a', 1));
  // Another server's transaction takes the next position and has not committed yet.
  const slow = new pg.Client({ connectionString: url });
  await slow.connect();
  try {
    await slow.query('BEGIN');
    await slow.query(
      `INSERT INTO run_events (position, run_id, seq, record)
       SELECT p, 'run_b', 1, jsonb_build_object('runId', 'run_b', 'seq', 1, 'pos', p, 'conversationId', 'conv_a', 'platformId', 'wkr_b')
       FROM (SELECT nextval('svc_event_position') AS p) AS next`,
    );
    const later = await runs.appendEvent(runEvent('run_a', 2));
    // Committed, but behind an open transaction: a reader that took it would move past the slow one's position.
    expect((await runs.eventsAfter(first.pos, {})).map((e) => e.pos)).toEqual([]);
    await slow.query('COMMIT');
    const replayed = await runs.eventsAfter(first.pos, {});
    expect(replayed.map((e) => e.runId)).toEqual(['run_b', 'run_a']);
    expect(replayed[1]).toEqual(later);
  } finally {
    await slow.end();
  }
});

it('a firing reserved at once by two servers is reserved by one', async () => {
  const first = { id: 'sched', workflow: 'nightly', lastDueAt: '2026-01-01T00:00:00.000Z', pendingRunId: null, lastRunId: null };
  expect(await postgresScheduleRepository(servers[0]).insertIfAbsent(first)).toBe(true);
  const [a, b] = servers.map((db) => postgresScheduleRepository(db));
  const read = [(await a!.get('sched'))!, (await b!.get('sched'))!];
  const won = await spread(10, (_db, i) =>
    (i % 2 ? a! : b!).replaceIf(read[i % 2]!, { ...first, lastDueAt: '2026-01-02T00:00:00.000Z', pendingRunId: `run_${i}` }),
  );
  expect(won.filter(Boolean)).toHaveLength(1);
});

it('a run one server deletes as it read it (failed) while another resumes it stays; a run deleted is not brought back by a late write of another server', async () => {
  const a = postgresRunRepository(servers[0], 'srv_a');
  const b = postgresRunRepository(servers[1], 'srv_b');
  const at = new Date(0).toISOString();
  const failed = {
    id: 'run_000001x',
    workflow: 'build',
    status: 'failed' as const,
    message: '',
    conversationId: null,
    platformId: 'wkr_1',
    workspaceId: null,
    cwd: '/srv/project',
    trigger: 'api' as const,
    createdAt: at,
    startedAt: at,
    finishedAt: at,
    updatedAt: at,
    error: 'interrupted',
    costUsd: null,
    nodes: {},
    resumePending: false,
    variables: {},
    definition: { name: 'build', nodes: [] },
  };
  expect(await a.save(failed, undefined, 'absent')).toBe(true);
  // Server B resumes it (failed → pending) after server A read it failed and decided to delete it.
  expect(await b.save({ ...failed, status: 'pending' }, undefined, 'failed')).toBe(true);
  expect(await a.delete(failed.id, 'failed')).toBe(false);
  expect((await a.get(failed.id))?.status).toBe('pending');

  // Deleted on what it is now; server B, which started it meanwhile, writes late: the run stays deleted.
  expect(await a.delete(failed.id, 'pending')).toBe(true);
  expect(await b.save({ ...failed, status: 'running' }, undefined, 'pending')).toBe(false);
  expect(await b.save({ ...failed, status: 'running' }, { sync: false }, 'running')).toBe(false);
  expect(await a.get(failed.id)).toBeUndefined();
});
