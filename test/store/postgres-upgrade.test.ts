// A database an earlier svc left at schema version 3 (docs/scaling.md): a server of this svc
// migrates it to the newest version at start (configuration and trigger registry, the answering
// server of conversations, homes) and carries on with what it holds: a run left pending is claimed
// and executed, a message left unanswered is answered as a restart answers it.
import { afterEach, expect, it } from 'vitest';
import { postgresConversationRepositories } from '../../src/conversations/postgres-repository.js';
import { newConversationRecord } from '../../src/conversations/records.js';
import { freshNodeState } from '../../src/runs/model/node-state.js';
import { postgresRunRepository } from '../../src/runs/storage/postgres-run-repository.js';
import type { RunRecord } from '../../src/runs/model/types.js';
import { silentLogger } from '../../src/shared/logger.js';
import { MIGRATIONS, openPostgres } from '../../src/store/postgres/index.js';
import { waitForReply } from '../helpers/conversations.js';
import { cleanupAll, tempDir, waitForRun } from '../helpers/runs.js';
import { killAllServes, spawnServe } from '../helpers/serve-process.js';
import { queryRows, usePostgres } from '../support/postgres.js';

const postgres = usePostgres();
afterEach(async () => {
  await killAllServes();
  await cleanupAll();
});

it('a server started on a database at version 3 migrates it, executes the run left pending and answers the message left unanswered', async () => {
  const url = await postgres.createDatabase();
  const project = await tempDir('svc-pg-upgrade-project-');
  const at = new Date().toISOString();
  const run: RunRecord = {
    id: 'run_0000upgrade',
    workflow: 'hello',
    status: 'pending',
    message: '',
    conversationId: null,
    platformId: 'wkr_upgrade',
    workspaceId: null,
    cwd: project,
    trigger: 'api',
    createdAt: at,
    startedAt: null,
    finishedAt: null,
    updatedAt: at,
    error: null,
    costUsd: null,
    nodes: { a: freshNodeState() },
    resumePending: false,
    variables: {},
    definition: { name: 'hello', description: 'left pending before the upgrade', nodes: [{ id: 'a', bash: 'echo upgraded' }] },
  };
  const conversation = newConversationRecord();
  const old = await openPostgres({ url, logger: silentLogger, migrations: MIGRATIONS.filter((m) => m.version <= 3) });
  let messageId: string;
  try {
    expect(old.migrations.version).toBe(3);
    expect(await postgresRunRepository(old).save(run, undefined, 'absent')).toBe(true);
    const { conversations, messages } = postgresConversationRepositories(old);
    await conversations.insert(conversation);
    messageId = (await messages.append(conversation.id, { role: 'user', content: 'asked before the upgrade', created_at: at, metadata: {} })).id;
    // Pending as that svc marked it (it had no answering server to record).
    await old.query(`UPDATE conversations SET record = jsonb_set(record, '{pending_message_ids}', $2::jsonb) WHERE id = $1`, [
      conversation.id,
      JSON.stringify([messageId]),
    ]);
  } finally {
    await old.close();
  }

  const home = await tempDir('svc-pg-upgrade-home-');
  const server = await spawnServe({ home, cwd: project, env: { SVC_DATABASE_URL: url } });
  expect((await queryRows<{ version: number }>(url, 'SELECT version FROM svc_schema_migrations ORDER BY version')).map((row) => row.version)).toEqual(
    MIGRATIONS.map((m) => m.version),
  );
  const done = await waitForRun(server, run.id);
  expect(done).toMatchObject({ status: 'completed', nodes: { a: { status: 'completed', output: 'upgraded' } } });
  expect(await waitForReply(server, conversation.id, messageId)).toMatchObject({ role: 'system', metadata: { code: 'interrupted', replyTo: messageId } });
}, 60_000);
