// `svc serve` with SVC_DATABASE_URL (docs/scaling.md): two real server processes, each with its own
// SVC_HOME, start together on one empty database (the schema is applied once) and see the same
// workspaces and conversations, which outlive both servers.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { makeProject, workflowYaml } from '../helpers/workflow-project.js';
import { MIGRATIONS } from '../../src/store/postgres/index.js';
import { usePostgres } from '../support/postgres.js';

const postgres = usePostgres();
const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function serve(url: string): Promise<ServeProcess> {
  const server = await spawnServe({ home: await tempDir('svc-pg-home-'), env: { SVC_DATABASE_URL: url } });
  cleanup.push(() => server.stop());
  return server;
}

async function call(server: ServeProcess, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
}

it('two servers on one database share workspaces and conversations, which outlive them', async () => {
  const url = await postgres.createDatabase();
  const [a, b] = await Promise.all([serve(url), serve(url)]);

  const project = await tempDir('svc-pg-project-');
  const created = await call(a, 'POST', '/api/workspaces', { path: project });
  expect(created.status).toBeLessThan(300);
  // The same directory through the other server is the same workspace (the unique key is shared).
  const again = await call(b, 'POST', '/api/workspaces', { path: project });
  expect(again.status).toBe(409);
  expect(again.body).toMatchObject({ error: 'workspace_exists', details: { id: created.body.id } });
  const conversation = await call(b, 'POST', '/api/conversations', {});
  expect(conversation.status).toBe(201);

  const listed = await call(b, 'GET', '/api/workspaces');
  expect(JSON.stringify(listed.body)).toContain(project);
  const conversations = await call(a, 'GET', '/api/conversations');
  expect(JSON.stringify(conversations.body)).toContain(conversation.body.id);

  await Promise.all([a.stop(), b.stop()]);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: number }>('SELECT version FROM svc_schema_migrations ORDER BY version');
    expect(rows.map((row) => row.version)).toEqual(MIGRATIONS.map((m) => m.version));
    const counts = await client.query<{ workspaces: number; conversations: number }>(
      'SELECT (SELECT count(*)::int FROM workspaces) AS workspaces, (SELECT count(*)::int FROM conversations) AS conversations',
    );
    expect(counts.rows[0]).toEqual({ workspaces: 1, conversations: 1 });
  } finally {
    await client.end();
  }

  const later = await serve(url);
  expect(JSON.stringify((await call(later, 'GET', '/api/workspaces')).body)).toContain(project);
}, 60_000);

it("a workspace registered on one server has its workflows found by the other (discovery reads the database's workspaces)", async () => {
  const url = await postgres.createDatabase();
  const [a, b] = await Promise.all([serve(url), serve(url)]);
  const project = await makeProject();
  cleanup.push(() => project.remove());
  await project.write('only-here.yaml', workflowYaml('only-here'));

  const created = await call(a, 'POST', '/api/workspaces', { path: project.dir });
  expect(created.status).toBe(201);
  const listed = await call(b, 'GET', '/api/workflows');
  expect(listed.status).toBe(200);
  const names = (listed.body.workflows as Array<{ name: string; workspaceId?: string | null }>).filter((w) => w.name === 'only-here');
  expect(names).toHaveLength(1);
}, 60_000);
