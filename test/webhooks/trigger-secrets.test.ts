// Where a trigger's secret comes from: a deleted workspace's trigger must not fall back to the
// server's variable of the same name; `secret_env` naming a variable anyone can guess (HOME, PATH,
// svc's own settings) is no secret.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { api, cleanupAll, tempDir } from '../helpers/runs.js';
import { startTestServer } from '../helpers/server.js';
import { makeRepository } from '../helpers/git.js';
import { deliver, hookWorkflow, OTHER_SECRET, registerTriggers, SECRET, sign } from '../helpers/webhooks.js';

afterEach(cleanupAll);

describe('webhook secrets', () => {
  it("a deleted workspace's trigger answers 503 and never takes the server's variable of the same name", async () => {
    const dir = join(await tempDir('svc-hook-ws-'), 'repo');
    await mkdir(join(dir, '.svc', 'workflows'), { recursive: true });
    makeRepository(dir);
    await writeFile(
      join(dir, '.svc', 'workflows', 'wsflow.yaml'),
      hookWorkflow('wsflow', ['{ event: push, slug: ws-hook, secret_env: PUSH_SECRET, idempotency_key: delivery_id }']),
    );
    const server = await startTestServer({ env: { PUSH_SECRET: OTHER_SECRET } });
    try {
      // Registering the workspace registers its triggers.
      const workspace = (await api(server, 'POST', '/api/workspaces', { path: dir })).body;
      await api(server, 'PUT', `/api/workspaces/${workspace.id}/env`, { PUSH_SECRET: SECRET });
      const body = JSON.stringify({ event: 'push', delivery_id: 'k1' });
      expect((await deliver(server, 'ws-hook', body, { signature: sign(body, SECRET) })).status).toBe(202);
      expect((await deliver(server, 'ws-hook', body, { signature: sign(body, OTHER_SECRET) })).status).toBe(401);
      const run = await server.ctx.engine.waitUntilSettled((await api(server, 'GET', '/api/workflows/runs?workflow=wsflow')).body.runs[0].id);
      expect(run.status).toBe('completed');
      expect((await api(server, 'DELETE', `/api/workspaces/${workspace.id}`)).status).toBe(200);
      const other = JSON.stringify({ event: 'push', delivery_id: 'k2' });
      const answer = await deliver(server, 'ws-hook', other, { signature: sign(other, OTHER_SECRET) });
      expect(answer.status).toBe(503);
    } finally {
      await server.stop();
    }
  });

  it('refuses secret_env naming a variable anyone can guess', async () => {
    const dir = await tempDir('svc-hook-guess-');
    await mkdir(join(dir, '.svc', 'workflows'), { recursive: true });
    await writeFile(
      join(dir, '.svc', 'workflows', 'guess.yaml'),
      hookWorkflow('guess', [
        '{ event: push, slug: home-hook, secret_env: HOME, idempotency_key: delivery_id }',
        '{ event: push, slug: ok-hook, secret_env: PUSH_SECRET, idempotency_key: delivery_id }',
      ]),
    );
    const server = await startTestServer({ env: { PUSH_SECRET: SECRET } });
    try {
      await registerTriggers(server, dir);
      const body = JSON.stringify({ event: 'push', delivery_id: 'x' });
      expect((await deliver(server, 'home-hook', body, { signature: sign(body, process.env.HOME ?? '/root') })).status).toBe(503);
      // The trigger beside it, on a real secret, takes the same delivery.
      const accepted = await deliver(server, 'ok-hook', body, { signature: sign(body, SECRET) });
      expect(accepted.status).toBe(202);
      expect((await server.ctx.engine.waitUntilSettled(accepted.body.run_id)).status).toBe('completed');
    } finally {
      await server.stop();
    }
  });
});
