// Webhook reliability: concurrent identical deliveries make one run, a 200 KiB payload reaches the
// run intact, an expired window accepts the key again, a workspace's secret comes before the
// server's, and dedupe survives kill -9 and a restart of the built server.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killAllServes, spawnServe } from '../helpers/serve-process.js';
import { makeHome, startTestServer, type TestServer } from '../helpers/server.js';
import type { Project } from '../helpers/workflow-project.js';
import { makeRepository } from '../helpers/git.js';
import { deliver, hookWorkflow, makeHookProject, OTHER_SECRET, registerTriggers, SECRET, sign } from '../helpers/webhooks.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await killAllServes();
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function hookServer(env: Record<string, string> = { PUSH_SECRET: SECRET }): Promise<{ server: TestServer; project: Project }> {
  const project = await makeHookProject();
  cleanup.push(() => project.remove());
  const server = await startTestServer({ socket: true, env });
  cleanup.push(() => server.stop());
  await registerTriggers(server, project.dir);
  return { server, project };
}

const runsOf = async (server: TestServer, workflow: string) => (await server.ctx.engine.list({ workflow, limit: 200 })).runs;

describe('webhook reliability', () => {
  it('20 concurrent identical deliveries: one 202, nineteen duplicates naming its run, one run', async () => {
    const { server } = await hookServer();
    const before = (await runsOf(server, 'hook')).length;
    const body = JSON.stringify({ event: 'push', delivery_id: 'same-for-all', n: 1 });
    const answers = await Promise.all(Array.from({ length: 20 }, () => deliver(server.url, 'on-push', body)));
    const accepted = answers.filter((a) => a.status === 202);
    expect(accepted).toHaveLength(1);
    const runId = accepted[0]!.body.run_id;
    const duplicates = answers.filter((a) => a.status === 200);
    expect(duplicates).toHaveLength(19);
    for (const d of duplicates) expect(d.body).toMatchObject({ skipped: 'duplicate', run_id: runId });
    expect((await runsOf(server, 'hook')).length - before).toBe(1);
    await server.ctx.engine.waitUntilSettled(runId);
  });

  it('a 200 KiB payload reaches the run intact: the message, the prompt variable, and TRIGGER_PAYLOAD_FILE; the env value is empty, the spawn fine', async () => {
    const { server } = await hookServer();
    const body = JSON.stringify({ event: 'push', delivery_id: 'big-one', blob: 'é'.repeat(50 * 1024) + 'z'.repeat(100 * 1024) });
    expect(Buffer.byteLength(body)).toBeGreaterThan(200 * 1024);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(256 * 1024);
    const answer = await deliver(server.url, 'on-push', body);
    expect(answer.status).toBe(202);
    const run = await server.ctx.engine.waitUntilSettled(answer.body.run_id);
    expect(run.status).toBe('completed');
    expect(run.message).toBe(body);
    expect(run.variables.TRIGGER_PAYLOAD).toBe(body);
    const lines = run.nodes.show!.output!.trim().split('\n');
    expect(lines).toContain('len=0');
    expect(lines).toContain(`file=${createHash('sha256').update(body).digest('hex')}`);
  });

  it('after the dedupe window the same key is accepted again, with a new run', async () => {
    const { server } = await hookServer();
    const body = JSON.stringify({ event: 'push', delivery_id: 'window' });
    const first = await deliver(server.url, 'short', body);
    expect(first.status).toBe(202);
    expect((await deliver(server.url, 'short', body)).status).toBe(200);
    // Time must pass for the 1 s dedupe window: the server's webhook service reads the wall clock (its `now` is not reachable from a test).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const later = await deliver(server.url, 'short', body);
    expect(later.status).toBe(202);
    expect(later.body.run_id).not.toBe(first.body.run_id);
    await server.ctx.engine.waitUntilSettled(later.body.run_id);
    await server.ctx.engine.waitUntilSettled(first.body.run_id);
  });

  it("the secret is looked up in the workspace's env vars first, then in the server's environment", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-hook-ws-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    await mkdir(join(dir, '.svc', 'workflows'), { recursive: true });
    makeRepository(dir, {
      'README.md': '# ws\n',
      '.svc/workflows/ws-hook.yaml': hookWorkflow('ws-hook', ['{ event: push, slug: ws-push, secret_env: PUSH_SECRET, idempotency_key: delivery_id }']),
    });
    const { server } = await hookServer({ PUSH_SECRET: OTHER_SECRET });
    const registered = await server.json('POST', '/api/workspaces', { path: dir });
    // Registering the workspace registers its triggers.
    expect(registered.status).toBe(201);
    const body = JSON.stringify({ event: 'push', delivery_id: 'ws-1' });
    // Without a workspace value the server's environment signs.
    const first = await deliver(server.url, 'ws-push', body, { signature: sign(body, OTHER_SECRET) });
    expect(first.status).toBe(202);
    const run = await server.ctx.engine.waitUntilSettled(first.body.run_id);
    expect(run.workspaceId).toBe(registered.body.id);
    expect((await server.json('PUT', `/api/workspaces/${registered.body.id}/env`, { PUSH_SECRET: SECRET })).status).toBe(200);
    const second = JSON.stringify({ event: 'push', delivery_id: 'ws-2' });
    expect((await deliver(server.url, 'ws-push', second, { signature: sign(second, OTHER_SECRET) })).status).toBe(401);
    const accepted = await deliver(server.url, 'ws-push', second, { signature: sign(second, SECRET) });
    expect(accepted.status).toBe(202);
    await server.ctx.engine.waitUntilSettled(accepted.body.run_id);
  });

  it('dedupe survives kill -9 and a restart: the key is a duplicate of the run accepted before the crash', async () => {
    const project = await makeHookProject();
    cleanup.push(() => project.remove());
    const home = await makeHome();
    cleanup.push(() => rm(home, { recursive: true, force: true }));
    const env = { PUSH_SECRET: SECRET };
    const first = await spawnServe({ home, env, cwd: project.dir });
    const body = JSON.stringify({ event: 'push', delivery_id: 'crash-1' });
    const accepted = await deliver(first.url, 'on-push', body);
    expect(accepted.status).toBe(202);
    await first.stop('SIGKILL');
    const second = await spawnServe({ home, env, cwd: project.dir });
    const again = await deliver(second.url, 'on-push', body);
    expect(again).toEqual({ status: 200, body: { skipped: 'duplicate', run_id: accepted.body.run_id, first_received_at: expect.any(String) } });
    const other = await deliver(second.url, 'on-push', JSON.stringify({ event: 'push', delivery_id: 'crash-1', changed: true }));
    expect(other.status).toBe(409);
    const run = await fetch(`${second.url}/api/workflows/runs/${accepted.body.run_id}`);
    expect(run.status).toBe(200);
    await second.stop();
  });

  it('a key a crash left reserved, whose run was never created, is taken over by the next delivery (no lost delivery, one run)', async () => {
    const home = await makeHome();
    cleanup.push(() => rm(home, { recursive: true, force: true }));
    const project = await makeHookProject();
    cleanup.push(() => project.remove());
    // What a crash between reserving the key and creating the run leaves on disk.
    const id = createHash('sha256').update('on-push\nreserved-1').digest('hex');
    const record = {
      id,
      slug: 'on-push',
      key: 'reserved-1',
      bodyHash: 'whatever',
      runId: 'run_0000000000crashed01',
      state: 'reserved',
      firstReceivedAt: new Date().toISOString(),
      expiresAt: Date.now() + 3_600_000,
    };
    await mkdir(join(home, 'data', 'webhook-dedupe', id), { recursive: true });
    await writeFile(join(home, 'data', 'webhook-dedupe', id, 'record.json'), JSON.stringify(record));
    const server = await startTestServer({ socket: true, home, env: { PUSH_SECRET: SECRET } });
    cleanup.push(() => server.stop());
    await registerTriggers(server, project.dir);
    const body = JSON.stringify({ event: 'push', delivery_id: 'reserved-1' });
    const answer = await deliver(server.url, 'on-push', body);
    expect(answer).toEqual({ status: 202, body: { accepted: true, run_id: record.runId } });
    expect((await deliver(server.url, 'on-push', body)).body).toMatchObject({ skipped: 'duplicate', run_id: record.runId });
    await server.ctx.engine.waitUntilSettled(record.runId);
  });
});
