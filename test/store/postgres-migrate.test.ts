// `svc migrate-store --to postgres://…` (docs/scaling.md): a populated file store — runs and their
// events, conversations with messages and events, workspaces with env values — is copied into an
// empty database, verified by counts; a server on the database then shows the same history, and
// new events are positioned after every copied one. A database that is not empty is refused.
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeHome } from '../helpers/server.js';
import { api, cleanupAll, FAKE_CLAUDE, getRun, makeProject, onCleanup, startRun, startServer, waitFor, waitForRun, type Json } from '../engine/helpers.js';
import { usePostgres } from '../support/postgres.js';

const postgres = usePostgres();
afterEach(cleanupAll);

async function count(url: string, table: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;
  } finally {
    await client.end();
  }
}

it('copies a populated file store into an empty database, verified by counts; the history reads the same there', async () => {
  const home = await makeHome();
  const project = await makeProject([
    {
      name: 'chain',
      nodes: [
        { id: 'a', bash: 'echo a' },
        { id: 'b', bash: 'echo b', depends_on: ['a'] },
      ],
    },
    { name: 'broken', nodes: [{ id: 'x', bash: 'exit 3' }] },
  ]);
  const fileServer = await startServer({ home, env: { SVC_CLAUDE_BIN: FAKE_CLAUDE } });
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

  const dbServer = await startServer({ env: { SVC_DATABASE_URL: url, SVC_CLAUDE_BIN: FAKE_CLAUDE } });
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
