// The persistent webhook trigger registry (issue 3): what a registering pass registers, slug
// conflicts reported on both workflows, scoped refreshes, and survival across a restart. A
// listing (a GET) reports the same problems and registers nothing (issue 19).
import { rm, unlink, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { findTrigger } from '../../src/catalog/index.js';
import { makeHome, startTestServer, type TestServer } from '../helpers/server.js';
import { makeProject, webhookTriggers, withCwd, workflowYaml, type Project } from '../helpers/workflow-project.js';

let server: TestServer | undefined;
const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await server?.stop();
  server = undefined;
  for (const step of cleanup.splice(0)) await step();
});

async function project(): Promise<Project> {
  const made = await makeProject();
  cleanup.push(() => made.remove());
  return made;
}

async function list(cwd: string) {
  const { status, body } = await server!.json('GET', withCwd('/api/workflows', cwd));
  expect(status).toBe(200);
  return body as { workflows: Array<{ name: string; triggers: unknown[] }>; errors?: Array<{ filename: string; error: string }> };
}

/** The explicit registration of a directory's triggers (`svc webhook register`). */
async function register(cwd: string) {
  const { status, body } = await server!.json('POST', withCwd('/api/webhooks/register', cwd));
  expect(status).toBe(200);
  return body as { webhooks: Array<{ slug: string }>; errors?: Array<{ filename: string; error: string }> };
}

const slugs = async () => (await server!.ctx.workflows.triggers()).map((t) => t.slug);

describe('the trigger registry', () => {
  it('registers every webhook trigger of a discovered workflow, normalized, with where it was found', async () => {
    server = await startTestServer();
    const p = await project();
    const file = await p.write(
      'deploy.yaml',
      workflowYaml('deploy', {
        extra:
          'triggers:\n  webhook:\n    - { event: push, slug: on-push, secret_env: PUSH_SECRET, idempotency_key: delivery_id, dedupe_window_sec: 60, filter: { ref: refs/heads/main } }\n    - { event: release, slug: on-release, secret_env: RELEASE_SECRET, idempotency_key: id }',
      }),
    );
    const body = await list(p.dir);
    expect(body.workflows.find((w) => w.name === 'deploy')!.triggers).toEqual([
      { kind: 'webhook', event: 'push', slug: 'on-push' },
      { kind: 'webhook', event: 'release', slug: 'on-release' },
    ]);
    // Listed, not registered: that takes an explicit call.
    expect(await slugs()).toEqual([]);
    expect((await register(p.dir)).webhooks.map((w) => w.slug)).toEqual(['on-push', 'on-release']);
    expect(await server.ctx.workflows.findTrigger('on-push')).toEqual({
      id: 'on-push',
      slug: 'on-push',
      workflow: 'deploy',
      workspaceId: null,
      cwd: p.dir,
      filename: file,
      trigger: {
        event: 'push',
        slug: 'on-push',
        secretEnv: 'PUSH_SECRET',
        idempotencyKey: 'delivery_id',
        dedupeWindowSec: 60,
        filter: { ref: 'refs/heads/main' },
      },
    });
    expect((await server.ctx.workflows.findTrigger('on-release'))?.trigger.dedupeWindowSec).toBe(3600);
    expect(await server.ctx.workflows.findTrigger('nope')).toBeUndefined();
  });

  it('a slug claimed by two workflows is an error on both, and neither is registered', async () => {
    server = await startTestServer();
    const p = await project();
    const a = await p.write('a.yaml', workflowYaml('a', { extra: webhookTriggers('shared', 'only-a') }));
    const b = await p.write('b.yaml', workflowYaml('b', { extra: webhookTriggers('shared') }));
    const listed = await list(p.dir);
    // Both workflows stay usable; only the contested trigger is held back.
    expect(listed.workflows.map((w) => w.name)).toEqual(expect.arrayContaining(['a', 'b']));
    const body = await register(p.dir);
    // A listing reports what a registration would meet.
    expect(listed.errors).toEqual(body.errors);
    expect(body.errors).toEqual([
      {
        filename: a,
        error: `${a}:11:28: triggers.webhook[0].slug: slug 'shared' is also claimed by workflow 'b' (${b}); a slug must be unique, so neither trigger is registered`,
      },
      {
        filename: b,
        error: `${b}:11:28: triggers.webhook[0].slug: slug 'shared' is also claimed by workflow 'a' (${a}); a slug must be unique, so neither trigger is registered`,
      },
    ]);
    expect(await slugs()).toEqual(['only-a']);

    // Resolve the conflict: the remaining claim is registered on the next pass.
    await writeFile(b, workflowYaml('b', { extra: webhookTriggers('only-b') }));
    expect(await register(p.dir)).not.toHaveProperty('errors');
    expect(await slugs()).toEqual(['only-a', 'only-b', 'shared']);
    expect((await server.ctx.workflows.findTrigger('shared'))?.workflow).toBe('a');
  });

  it('drops a trigger that was removed from its file, or whose file was deleted', async () => {
    server = await startTestServer();
    const p = await project();
    const file = await p.write('hooks.yaml', workflowYaml('hooks', { extra: webhookTriggers('one', 'two') }));
    await register(p.dir);
    expect(await slugs()).toEqual(['one', 'two']);
    await writeFile(file, workflowYaml('hooks', { extra: webhookTriggers('two') }));
    // A listing drops nothing either.
    await list(p.dir);
    expect(await slugs()).toEqual(['one', 'two']);
    await register(p.dir);
    expect(await slugs()).toEqual(['two']);
    await unlink(file);
    await register(p.dir);
    expect(await slugs()).toEqual([]);
  });

  it('a pass for one cwd keeps the triggers of another; a live registration elsewhere wins a slug', async () => {
    server = await startTestServer();
    const first = await project();
    const second = await project();
    const firstFile = await first.write('one.yaml', workflowYaml('one', { extra: webhookTriggers('hook') }));
    const secondFile = await second.write('two.yaml', workflowYaml('two', { extra: webhookTriggers('hook', 'other') }));
    await register(first.dir);
    expect((await list(second.dir)).errors).toEqual([
      { filename: secondFile, error: expect.stringContaining(`slug 'hook' is also claimed by workflow 'one' (${firstFile}); that registration stands`) },
    ]);
    expect(await server.ctx.workflows.findTrigger('other')).toBeUndefined();
    const body = await register(second.dir);
    expect(body.errors).toEqual([
      { filename: secondFile, error: expect.stringContaining(`slug 'hook' is also claimed by workflow 'one' (${firstFile}); that registration stands`) },
    ]);
    expect(await server.ctx.workflows.findTrigger('hook')).toMatchObject({ workflow: 'one', cwd: first.dir });
    expect(await server.ctx.workflows.findTrigger('other')).toMatchObject({ workflow: 'two', cwd: second.dir });
    // Once the first file is gone, its stale registration no longer blocks the slug.
    await unlink(firstFile);
    expect(await register(second.dir)).not.toHaveProperty('errors');
    expect(await server.ctx.workflows.findTrigger('hook')).toMatchObject({ workflow: 'two', cwd: second.dir });
  });

  it('registers triggers of workspace workflows with the workspace id and directory', async () => {
    server = await startTestServer();
    const here = await project();
    const workspace = await project();
    await workspace.write('ws-flow.yaml', workflowYaml('ws-flow', { extra: webhookTriggers('ws-hook') }));
    const workspaces = await server.ctx.store.collection<{ id: string; path: string }>('workspaces', 'single');
    await workspaces.put({ id: 'ws-7', path: workspace.dir });
    await register(here.dir);
    expect(await server.ctx.workflows.findTrigger('ws-hook')).toMatchObject({ workflow: 'ws-flow', workspaceId: 'ws-7', cwd: workspace.dir });
  });

  it('persists in the store across a restart, and the server registers what it sees at start', async () => {
    const home = await makeHome();
    cleanup.push(() => rm(home, { recursive: true, force: true }));
    const p = await project();
    await p.write('kept.yaml', workflowYaml('kept', { extra: webhookTriggers('kept-hook') }));
    server = await startTestServer({ home });
    await register(p.dir);
    await server.stop();

    const workspace = await project();
    await workspace.write('at-start.yaml', workflowYaml('at-start', { extra: webhookTriggers('start-hook') }));
    // A workspace registered while no server ran: its triggers are registered when the server starts.
    const { openFileStore } = await import('../../src/store/index.js');
    const { createLogger } = await import('../../src/shared/logger.js');
    const store = await openFileStore({ home, logger: createLogger({ level: 'error' }), lock: 'cli' });
    await (await store.collection<{ id: string; path: string }>('workspaces', 'single')).put({ id: 'ws-9', path: workspace.dir });
    await store.close();

    server = await startTestServer({ home });
    expect(await server.ctx.workflows.findTrigger('kept-hook')).toMatchObject({ workflow: 'kept', cwd: p.dir });
    expect(await findTrigger(server.ctx.store, 'start-hook')).toMatchObject({ workflow: 'at-start', workspaceId: 'ws-9' });
  });
});
