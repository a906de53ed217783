// Conversations from the CLI's offline mode on a shared database (docs/scaling.md, The CLI without
// a server): the built `svc` with SVC_DATABASE_URL and no server of its own records the message
// pending and leaves the answer to a server (telling the servers at once), then shows the reply
// from the database's events. With no server up it says the message waits; a server started later
// answers it once, as a send, not as interrupted. The CLI's own agent is never run.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { closedPort, killAllServes, spawnCli, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { cleanupAll, FAKE_CLAUDE, tempDir, waitFor, type Json } from '../helpers/runs.js';
import { messages } from '../helpers/conversations.js';
import { queryRows, usePostgres } from '../support/postgres.js';

const postgres = usePostgres();
afterEach(async () => {
  await killAllServes();
  await cleanupAll();
});

const WAITS = /no server is up on the database: message (\S+) waits .*pending.* until a server/;

/** A server on the database whose fake agent notes each invocation in `log`. */
async function server(url: string, log: string): Promise<ServeProcess> {
  const home = await tempDir('svc-pg-cli-conv-server-');
  return spawnServe({ home, cwd: home, env: { SVC_DATABASE_URL: url, SVC_CLAUDE_BIN: FAKE_CLAUDE, FAKE_CLAUDE_LOG: log } });
}

/**
 * A CLI with its own SVC_HOME (no server there) on the database. Its agent is the fake too, noting
 * invocations in a log of its own: it must stay empty, since only servers answer.
 */
async function offlineEnv(url: string): Promise<Record<string, string>> {
  const home = await tempDir('svc-pg-cli-conv-home-');
  return {
    SVC_HOME: home,
    SVC_DATABASE_URL: url,
    PORT: String(await closedPort()),
    SVC_CLAUDE_BIN: FAKE_CLAUDE,
    FAKE_CLAUDE_LOG: join(home, 'cli-agent.jsonl'),
  };
}

async function invocations(log: string): Promise<number> {
  return (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
}

async function conversationRow(url: string, id: string): Promise<{ pending: string[]; server: string | null }> {
  const rows = await queryRows<{ pending: string[]; server: string | null }>(
    url,
    "SELECT coalesce(record->'pending_message_ids', '[]'::jsonb) AS pending, answering_server AS server FROM conversations WHERE id = $1",
    [id],
  );
  return rows[0]!;
}

/**
 * The row once its holder lets go: the server releases a conversation on its next turn, a moment
 * after the reply the CLI printed and exited on.
 */
async function released(url: string, id: string) {
  let row = await conversationRow(url, id);
  await waitFor(
    async () => (row = await conversationRow(url, id)).server === null,
    10_000,
    () => `for the claim to be released: ${JSON.stringify(row)}`,
  ).catch(() => undefined);
  return row;
}

async function newConversation(env: Record<string, string>): Promise<string> {
  const created = await runCli(['conversation', 'new', '--json'], { env, cwd: env.SVC_HOME });
  expect(created.code, created.stderr).toBe(0);
  return (JSON.parse(created.stdout) as Json).id as string;
}

it('with a server up: svc conversation send and svc chat show the replies, each answered once by the server', async () => {
  const url = await postgres.createDatabase();
  const log = join(await tempDir('svc-pg-cli-conv-log-'), 'agent.jsonl');
  const up = await server(url, log);
  const env = await offlineEnv(url);
  const id = await newConversation(env);

  const sent = await runCli(['conversation', 'send', id, 'hello', 'there'], { env, cwd: env.SVC_HOME, timeoutMs: 30_000 });
  expect(sent.code, sent.stderr).toBe(0);
  expect(sent.stdout).toBe('fake reply: hello there\n');
  // The same as with a server of its own: no note, since a server is up.
  expect(sent.stderr).not.toMatch(WAITS);

  const chatted = await runCli(['chat', id], { env, cwd: env.SVC_HOME, input: 'one\ntwo\n', timeoutMs: 30_000 });
  expect(chatted.code, chatted.stderr).toBe(0);
  expect(chatted.stdout).toBe('fake reply: one\nfake reply: two\n');

  const all = await messages(up, id);
  expect(all.map((m: Json) => [m.role, m.content])).toEqual([
    ['user', 'hello there'],
    ['assistant', 'fake reply: hello there'],
    ['user', 'one'],
    ['assistant', 'fake reply: one'],
    ['user', 'two'],
    ['assistant', 'fake reply: two'],
  ]);
  expect(await invocations(log)).toBe(3);
  expect(await invocations(env.FAKE_CLAUDE_LOG!)).toBe(0);
  expect(await released(url, id)).toEqual({ pending: [], server: null });
}, 60_000);

it('with no server up: the CLI says the message waits, and a server started later answers it once, not as interrupted', async () => {
  const url = await postgres.createDatabase();
  const log = join(await tempDir('svc-pg-cli-conv-log-'), 'agent.jsonl');
  const env = await offlineEnv(url);
  const id = await newConversation(env);

  const cli = spawnCli(['conversation', 'send', id, 'anyone', 'there?'], env, env.SVC_HOME!);
  const messageId = await waitFor(async () => WAITS.exec(cli.stderr())?.[1], 20_000, cli.stderr);
  expect(await conversationRow(url, id)).toEqual({ pending: [messageId], server: null });

  const up = await server(url, log);
  const result = await cli.done;
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toBe('fake reply: anyone there?\n');

  const all = await messages(up, id);
  expect(all.map((m: Json) => [m.role, m.content])).toEqual([
    ['user', 'anyone there?'],
    ['assistant', 'fake reply: anyone there?'],
  ]);
  expect(all[1]!.metadata.replyTo).toBe(messageId);
  expect(await invocations(log)).toBe(1);
  expect(await invocations(env.FAKE_CLAUDE_LOG!)).toBe(0);
  expect(await released(url, id)).toEqual({ pending: [], server: null });

  // --no-wait with no server up: the id, the note, and the message is answered when one starts.
  await up.stop();
  const queued = await runCli(['conversation', 'send', id, 'later', '--no-wait'], { env, cwd: env.SVC_HOME });
  expect(queued.code, queued.stderr).toBe(0);
  expect(queued.stderr).toMatch(WAITS);
  const laterId = queued.stdout.trim();
  const again = await server(url, log);
  await waitFor(async () => (await messages(again, id)).find((m: Json) => m.metadata.replyTo === laterId), 20_000);
  expect((await messages(again, id)).find((m: Json) => m.metadata.replyTo === laterId)).toMatchObject({ role: 'assistant', content: 'fake reply: later' });
}, 90_000);
