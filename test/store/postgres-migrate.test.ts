// `svc migrate-store --to postgres://…` (docs/scaling.md): a populated file store — runs and their
// events, conversations with messages and events, workspaces with env values — is copied into an
// empty database, verified by counts; a server on the database then shows the same history, and
// new events are positioned after every copied one. A database that is not empty is refused. The
// assistant configuration, the webhook trigger registry, webhook dedupe records and deliveries, and
// schedule state are copied too, and a server on the database answers with them.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeHome, startTestServer } from '../helpers/server.js';
import { killAllServes, spawnServe } from '../helpers/serve-process.js';
import {
  api,
  cleanupAll,
  FAKE_CLAUDE,
  getRun,
  projectWithWorkflows,
  onCleanup,
  startRun,
  startServer,
  waitFor,
  waitForRun,
  type Json,
} from '../helpers/runs.js';
import { deliver, hookWorkflow, registerTriggers, SECRET } from '../helpers/webhooks.js';
import { queryRows, usePostgres } from '../support/postgres.js';

const postgres = usePostgres();
afterEach(cleanupAll);

async function count(url: string, table: string): Promise<number> {
  return (await queryRows<{ n: number }>(url, `SELECT count(*)::int AS n FROM ${table}`))[0]!.n;
}

it('copies a populated file store into an empty database, verified by counts; the history reads the same there', async () => {
  const home = await makeHome();
  const project = await projectWithWorkflows([
    {
      name: 'chain',
      nodes: [
        { id: 'a', bash: 'echo a' },
        { id: 'b', bash: 'echo b', depends_on: ['a'] },
      ],
    },
    { name: 'broken', nodes: [{ id: 'x', bash: 'exit 3' }] },
  ]);
  const fileServer = await startServer({ socket: true, home, env: { SVC_CLAUDE_BIN: FAKE_CLAUDE } });
  const workspace = (await api(fileServer, 'POST', '/api/workspaces', { path: project })).body;
  expect((await api(fileServer, 'PUT', `/api/workspaces/${workspace.id}/env`, { TOKEN: 'secret-value' })).status).toBe(200);
  const conversation = (await api(fileServer, 'POST', '/api/conversations', {})).body;
  await api(fileServer, 'POST', `/api/conversations/${conversation.id}/message`, { message: 'hello' });
  await waitFor(async () => (await api(fileServer, 'GET', `/api/conversations/${conversation.id}/messages`)).body.messages.length >= 2);
  const runs: Json[] = [];
  for (const [workflow, extra] of [
    ['chain', {}],
    ['broken', {}],
    ['chain', { conversationId: conversation.id }],
  ] as const)
    runs.push(await waitForRun(fileServer, await startRun(fileServer, workflow, { message: 'm', cwd: project, ...extra })));
  const listed = (await api(fileServer, 'GET', '/api/workflows/runs?limit=200')).body;
  const messages = (await api(fileServer, 'GET', `/api/conversations/${conversation.id}/messages`)).body.messages;
  await fileServer.stop({ keepHome: true });
  onCleanup(() => import('node:fs/promises').then(({ rm }) => rm(home, { recursive: true, force: true })));

  const url = await postgres.createDatabase();
  const migrated = await runCli(['migrate-store', '--to', url, '--json'], { env: { SVC_HOME: home } });
  expect(migrated.code, migrated.stderr).toBe(0);
  const { copied } = JSON.parse(migrated.stdout);
  expect(copied.runs).toBe(listed.total);
  expect(copied.runEvents).toBe(runs.reduce((sum, run) => sum + run.events.length, 0));
  expect(copied.messages).toBe(messages.length);
  expect(copied.conversationEvents).toBeGreaterThan(0);
  expect(copied.workspaces).toBe(1);
  expect(copied.workspaceEnvValues).toBe(1);
  expect(await count(url, 'runs')).toBe(copied.runs);
  expect(await count(url, 'run_events')).toBe(copied.runEvents);
  expect(await count(url, 'messages')).toBe(messages.length);

  // A second copy into the same database is refused: it is no longer empty.
  const again = await runCli(['migrate-store', '--to', url], { env: { SVC_HOME: home } });
  expect(again.code).not.toBe(0);
  expect(again.stderr).toContain('empty database');

  const dbServer = await startServer({ socket: true, env: { SVC_DATABASE_URL: url, SVC_CLAUDE_BIN: FAKE_CLAUDE } });
  for (const run of runs) expect(await getRun(dbServer, run.id)).toEqual(run);
  const relisted = (await api(dbServer, 'GET', '/api/workflows/runs?limit=200')).body;
  expect(relisted.runs.map((r: Json) => r.id)).toEqual(listed.runs.map((r: Json) => r.id));
  expect((await api(dbServer, 'GET', `/api/conversations/${conversation.id}/messages`)).body.messages).toEqual(messages);
  expect((await api(dbServer, 'GET', '/api/workspaces')).body.workspaces.map((w: Json) => w.id)).toEqual([workspace.id]);
  expect((await api(dbServer, 'GET', '/api/runs/benchmark?workflow=chain')).body.summary.runs).toBe(2);
  const highest = Math.max(...runs.flatMap((run) => run.events.map((e: Json) => e.pos as number)));
  const fresh = await waitForRun(dbServer, await startRun(dbServer, 'chain', { message: 'after', cwd: project }));
  expect(Math.min(...fresh.events.map((e: Json) => e.pos as number))).toBeGreaterThan(highest);
}, 60_000);

it('copies the assistant configuration, the trigger registry, webhook dedupe and deliveries, and schedule state; a server on the database answers with them', async () => {
  const home = await makeHome();
  onCleanup(() => rm(home, { recursive: true, force: true }));
  const project = await projectWithWorkflows([]);
  await writeFile(
    join(project, '.svc', 'workflows', 'hook.yaml'),
    hookWorkflow('hook', ['{ event: push, slug: on-push, secret_env: PUSH_SECRET, idempotency_key: delivery_id }']),
  );
  await writeFile(
    join(project, '.svc', 'workflows', 'yearly.yaml'),
    [
      'name: yearly',
      'description: scheduled',
      'nodes:',
      '  - id: work',
      '    bash: echo new year',
      'triggers:',
      '  schedule:',
      '    - { cron: "0 0 1 1 *" }',
    ].join('\n'),
  );
  const fileServer = await startTestServer({ socket: true, home, env: { PUSH_SECRET: SECRET } });
  let schedules: Json[];
  let runId: string;
  try {
    // The project as a workspace: the scheduler sees it, and a discovery pass registers its trigger; a tick records the schedule's state.
    expect((await api(fileServer, 'POST', '/api/workspaces', { path: project })).status).toBe(201);
    await registerTriggers(fileServer, project);
    await fileServer.ctx.schedules.tick();
    expect((await api(fileServer, 'PATCH', '/api/config/assistants', { claude: { model: 'kept-model' }, codex: { model: 'gpt-5' } })).status).toBe(200);
    const body = JSON.stringify({ event: 'push', delivery_id: 'before-the-move' });
    const accepted = await deliver(fileServer.url, 'on-push', body);
    expect(accepted.status).toBe(202);
    expect((await deliver(fileServer.url, 'on-push', body)).status).toBe(200);
    await waitForRun(fileServer, accepted.body.run_id);
    schedules = await fileServer.ctx.schedules.list();
    expect(schedules).toMatchObject([{ workflow: 'yearly', last_due_at: expect.any(String) }]);
    runId = accepted.body.run_id;
  } finally {
    await fileServer.stop({ keepHome: true });
  }

  const url = await postgres.createDatabase();
  const migrated = await runCli(['migrate-store', '--to', url, '--json'], { env: { SVC_HOME: home } });
  expect(migrated.code, migrated.stderr).toBe(0);
  const { copied } = JSON.parse(migrated.stdout);
  expect(copied).toMatchObject({ config: 1, webhookTriggers: 1, webhookDedupe: 1, webhookDeliveries: 2, scheduleStates: 1, runs: 1 });
  for (const [table, n] of Object.entries({ config: 1, webhook_triggers: 1, webhook_dedupe: 1, webhook_deliveries: 2, schedule_state: 1 }))
    expect(await count(url, table)).toBe(n);
  // The registry's paths are this machine's, and the records say so (docs/scaling.md).
  expect((await queryRows<{ record: Json }>(url, 'SELECT record FROM webhook_triggers'))[0]!.record).toMatchObject({
    slug: 'on-push',
    workflow: 'hook',
    cwd: project,
    host: hostname(),
  });
  const human = await runCli(['migrate-store', '--to', await postgres.createDatabase()], { env: { SVC_HOME: home } });
  expect(human.stdout).toContain(
    '1 webhook triggers (1 dedupe records, 2 deliveries), 1 schedule states, 0 queue entries,\nthe assistant configuration; counts verified',
  );

  const dbServer = await startTestServer({ socket: true, env: { SVC_DATABASE_URL: url, PUSH_SECRET: SECRET } });
  try {
    expect((await api(dbServer, 'GET', '/api/config')).body.assistants).toEqual({
      claude: { model: 'kept-model', permissions: 'read' },
      codex: { model: 'gpt-5', permissions: 'read' },
    });
    expect((await api(dbServer, 'GET', '/api/webhooks')).body.webhooks.map((w: Json) => w.slug)).toEqual(['on-push']);
    // The copied dedupe record: a redelivery is the same run, not a new one.
    const again = await deliver(dbServer.url, 'on-push', JSON.stringify({ event: 'push', delivery_id: 'before-the-move' }));
    expect(again).toMatchObject({ status: 200, body: { run_id: runId } });
    // The history's write is not waited for by the delivery: read it once it holds the new one.
    const history = await waitFor(async () => {
      const { deliveries } = (await api(dbServer, 'GET', '/api/webhooks/deliveries')).body;
      return deliveries.length === 3 ? (deliveries as Json[]) : undefined;
    });
    expect(history.map((d) => d.outcome)).toEqual(['duplicate', 'duplicate', 'accepted']);
    expect((await queryRows<{ record: Json }>(url, 'SELECT record FROM schedule_state'))[0]!.record.lastDueAt).toBe(schedules[0]!.last_due_at);
  } finally {
    await dbServer.stop();
  }
}, 60_000);

it('a message the file store left pending (its server killed mid-answer) is answered as interrupted on the database, not run again', async () => {
  const home = await makeHome();
  onCleanup(() => rm(home, { recursive: true, force: true }));
  const log = join(home, 'agent.jsonl');
  const fileServer = await spawnServe({ home, cwd: home, env: { SVC_CLAUDE_BIN: FAKE_CLAUDE, FAKE_CLAUDE_LOG: log } });
  onCleanup(() => killAllServes());
  const conversation = (await api(fileServer, 'POST', '/api/conversations', {})).body;
  const sent = (await api(fileServer, 'POST', `/api/conversations/${conversation.id}/message`, { message: '[fake:hang] never answered' })).body;
  const agent = await waitFor(async () => (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean)[0]);
  await fileServer.stop('SIGKILL');
  process.kill((JSON.parse(agent) as { pid: number }).pid, 'SIGKILL');

  const url = await postgres.createDatabase();
  const migrated = await runCli(['migrate-store', '--to', url, '--json'], { env: { SVC_HOME: home } });
  expect(migrated.code, migrated.stderr).toBe(0);
  const dbServer = await startServer({ socket: true, env: { SVC_DATABASE_URL: url, SVC_CLAUDE_BIN: FAKE_CLAUDE, FAKE_CLAUDE_LOG: log } });
  const reply = await waitFor(async () =>
    (await api(dbServer, 'GET', `/api/conversations/${conversation.id}/messages`)).body.messages.find((m: Json) => m.metadata.replyTo === sent.messageId),
  );
  expect(reply).toMatchObject({ role: 'system', metadata: { code: 'interrupted' } });
  // Not run again: the one agent invocation is the file server's.
  expect((await readFile(log, 'utf8')).split('\n').filter(Boolean)).toHaveLength(1);
  // The conversation is let go once nothing is pending, a moment after the reply is stored.
  const released = await waitFor(async () => {
    const rows = await queryRows<{ answering_server: string | null }>(url, 'SELECT answering_server FROM conversations');
    return rows[0]?.answering_server === null ? rows : undefined;
  });
  expect(released).toEqual([{ answering_server: null }]);
}, 60_000);
