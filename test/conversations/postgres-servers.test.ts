// Conversations answered by several real `svc serve` processes on one PostgreSQL database
// (docs/scaling.md): a conversation is answered by one server at a time, the one recorded in the
// database; a server starting leaves another's answer alone; a server killed outright mid-answer
// has the message recovered by another within the lease, as a restarted single server does; and
// messages sent through both servers to one conversation are each answered once, in order.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { killAllServes, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { cleanupAll, FAKE_CLAUDE, tempDir, waitFor, type Json } from '../helpers/runs.js';
import { usePostgres } from '../support/postgres.js';
import { createConversation, messages, send, waitForReply } from '../helpers/conversations.js';

const postgres = usePostgres();
afterEach(async () => {
  await killAllServes();
  await cleanupAll();
});

const LEASE_MS = 1500;

/** A server on the database whose fake agent notes each invocation in `log`. */
async function server(url: string, log: string): Promise<ServeProcess> {
  const home = await tempDir('svc-pg-conv-home-');
  return spawnServe({
    home,
    cwd: home,
    env: { SVC_DATABASE_URL: url, SVC_RUN_LEASE_MS: String(LEASE_MS), SVC_CLAUDE_BIN: FAKE_CLAUDE, FAKE_CLAUDE_LOG: log },
  });
}

/** The agent invocations so far: one line each, with the prompt and the fake's pid. */
async function invocations(log: string): Promise<Array<{ argv: string[]; stdin: string; pid: number }>> {
  const text = await readFile(log, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

async function pendingOf(url: string, conversationId: string): Promise<{ pending: string[]; server: string | null }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pending: string[]; server: string | null }>(
      "SELECT coalesce(record->'pending_message_ids', '[]'::jsonb) AS pending, answering_server AS server FROM conversations WHERE id = $1",
      [conversationId],
    );
    return rows[0]!;
  } finally {
    await client.end();
  }
}

it('a server starting while another answers a slow message does not answer it again', async () => {
  const url = await postgres.createDatabase();
  const log = join(await tempDir('svc-pg-conv-log-'), 'agent.jsonl');
  const a = await server(url, log);
  const conversation = await createConversation(a);
  const messageId = await send(a, conversation.id, '[fake:delay-first=3000] slow question');
  await waitFor(
    async () => (await invocations(log)).length === 1,
    15_000,
    () => 'the agent started on server A',
  );

  const b = await server(url, log);
  const reply = await waitForReply(b, conversation.id, messageId, 20_000);
  expect(reply).toMatchObject({ role: 'assistant', content: 'fake reply: slow question' });
  // Give server B time to act wrongly (a heartbeat or two), then count.
  await new Promise((resolve) => setTimeout(resolve, LEASE_MS));
  const all = await messages(b, conversation.id);
  expect(all.map((m: Json) => m.role)).toEqual(['user', 'assistant']);
  expect(await invocations(log)).toHaveLength(1);
  expect(await pendingOf(url, conversation.id)).toEqual({ pending: [], server: null });
}, 60_000);

it('kill -9 of the answering server: another recovers the message within the lease, and the conversation goes on there', async () => {
  const url = await postgres.createDatabase();
  const log = join(await tempDir('svc-pg-conv-log-'), 'agent.jsonl');
  const [a, b] = await Promise.all([server(url, log), server(url, log)]);
  const conversation = await createConversation(a!);
  const messageId = await send(a!, conversation.id, '[fake:hang] never answered');
  await waitFor(
    async () => (await invocations(log)).length === 1,
    15_000,
    () => 'the agent started on server A',
  );
  const { pid } = (await invocations(log))[0]!;

  await a!.stop('SIGKILL');
  const killedAt = Date.now();
  const recovered = await waitForReply(b!, conversation.id, messageId, 15_000);
  expect(Date.now() - killedAt).toBeLessThan(2 * LEASE_MS + 3000);
  // What a restarted single server does with an answer it did not finish (docs/decisions.md, "Conversations").
  expect(recovered).toMatchObject({ role: 'system', metadata: { code: 'interrupted', replyTo: messageId } });
  // The fake agent of the dead server is not the other server's to kill: stop it here.
  process.kill(pid, 'SIGKILL');
  // The reply is stored before the message leaves the pending list (a crash in between keeps the
  // reply and answers nothing twice), so the list empties a moment after the reply shows.
  await waitFor(
    async () => (await pendingOf(url, conversation.id)).pending.length === 0,
    5_000,
    () => 'the recovered message left the pending list',
  );

  const next = await send(b!, conversation.id, 'still there?');
  expect(await waitForReply(b!, conversation.id, next, 15_000)).toMatchObject({ role: 'assistant', content: 'fake reply: still there?' });
  expect((await messages(b!, conversation.id)).filter((m: Json) => m.metadata.replyTo === messageId)).toHaveLength(1);
  expect(await invocations(log)).toHaveLength(2);
}, 60_000);

it('messages sent through both servers to one conversation are each answered once, in order', async () => {
  const url = await postgres.createDatabase();
  const log = join(await tempDir('svc-pg-conv-log-'), 'agent.jsonl');
  const both = await Promise.all([server(url, log), server(url, log)]);
  const conversation = await createConversation(both[0]!);
  const ids = await Promise.all(Array.from({ length: 10 }, (_, i) => send(both[i % 2]!, conversation.id, `[fake:slow=50] message ${i}`)));
  expect(new Set(ids).size).toBe(10);
  await waitFor(
    async () => (await messages(both[1]!, conversation.id, '?limit=200')).filter((m: Json) => m.metadata.replyTo).length >= 10,
    60_000,
    () => 'ten replies',
  );
  // Give either server time to answer a message twice (a lease period), then count.
  await new Promise((resolve) => setTimeout(resolve, LEASE_MS));
  const all = await messages(both[0]!, conversation.id, '?limit=200');
  const users = all.filter((m: Json) => m.role === 'user');
  expect(users.map((m: Json) => m.id).sort()).toEqual([...ids].sort());
  // Each answered once, in the order the messages were stored, each reply after the one before.
  const replies = all.filter((m: Json) => m.role !== 'user');
  expect(replies.map((m: Json) => m.role)).toEqual(Array.from({ length: 10 }, () => 'assistant'));
  expect(replies.map((m: Json) => m.metadata.replyTo)).toEqual(users.map((m: Json) => m.id));
  for (const reply of replies)
    expect(reply.content).toBe(`fake reply: ${users.find((u: Json) => u.id === reply.metadata.replyTo)!.content.replace('[fake:slow=50] ', '')}`);
  // One agent at a time, each carrying on the session the one before it left.
  const calls = await invocations(log);
  expect(calls).toHaveLength(10);
  expect(calls.slice(1).every((call) => call.argv.includes('--resume'))).toBe(true);
  expect(await pendingOf(url, conversation.id)).toEqual({ pending: [], server: null });
}, 90_000);
