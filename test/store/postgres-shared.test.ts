// Two servers on one PostgreSQL database (two pools, as two `svc serve` processes would hold): the
// unique keys and single-statement updates the repositories rely on hold across them, not only
// within one process.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { postgresConversationRepositories } from '../../src/conversations/postgres-repository.js';
import { silentLogger } from '../../src/shared/logger.js';
import { openPostgres, type PostgresDatabase } from '../../src/store/postgres/index.js';
import { postgresWebhookRepositories } from '../../src/webhooks/postgres-repository.js';
import { postgresWorkspaceRepositories } from '../../src/workspaces/postgres-repository.js';
import { usePostgres } from '../support/postgres.js';
import { workspace } from './contract/workspaces.js';

const postgres = usePostgres();
let servers: [PostgresDatabase, PostgresDatabase];
beforeEach(async () => {
  const url = await postgres.createDatabase();
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
