// Issue 19, section 2: a GET — which any web page can make the user's browser send, e.g. as an
// <img> — never registers a webhook trigger (nor changes anything else); triggers come from the
// server's own directory and workspaces, or from an explicit call the browser guard covers. And a
// secret_env naming a variable anyone can guess (COLORTERM=truecolor, …) takes no delivery.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { routes } from '../../src/server/routes/index.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeProject, withCwd, type Project } from '../helpers/workflow-project.js';
import { deliver, hookWorkflow, registerTriggers, SECRET, sign } from '../helpers/webhooks.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function server(env: Record<string, string> = {}): Promise<TestServer> {
  const started = await startTestServer({ socket: true, env: { PUSH_SECRET: SECRET, ...env } });
  cleanup.push(() => started.stop());
  return started;
}

async function project(): Promise<Project> {
  const made = await makeProject();
  cleanup.push(() => made.remove());
  return made;
}

/** What a page on another site makes the browser send with an <img src="http://127.0.0.1:3090/…">. */
const CROSS_SITE = { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image', referer: 'https://evil.example/' };

/** A repository on disk with a workflow that runs bash on a signed delivery. */
async function plantedProject(triggers = ['{ event: push, slug: planted, secret_env: PUSH_SECRET, idempotency_key: delivery_id }'], name = 'planted') {
  const planted = await project();
  await planted.write(`${name}.yaml`, hookWorkflow(name, triggers));
  return planted;
}

const runCount = async (s: TestServer) => (await s.json('GET', '/api/workflows/runs')).body.total as number;
const registeredSlugs = async (s: TestServer) => (await s.json('GET', '/api/webhooks')).body.webhooks.map((w: { slug: string }) => w.slug) as string[];

describe('a GET registers no webhook trigger', () => {
  it('a cross-site GET of /api/workflows?cwd=<dir> lists the workflow but registers nothing: a signed delivery is 404 and no run starts', async () => {
    const s = await server();
    const planted = await plantedProject();
    for (const path of [withCwd('/api/workflows', planted.dir), withCwd('/api/workflows/planted', planted.dir), '/api/schedules', '/api/webhooks']) {
      const response = await s.fetch(path, { headers: CROSS_SITE });
      expect(response.status, path).toBe(200);
      if (path.startsWith('/api/workflows?'))
        expect(((await response.json()) as { workflows: Array<{ name: string }> }).workflows.map((w) => w.name)).toContain('planted');
      else await response.arrayBuffer();
    }
    const body = JSON.stringify({ event: 'push', delivery_id: 'from-the-internet' });
    const answer = await deliver(s.url, 'planted', body);
    expect(answer).toMatchObject({ status: 404, body: { error: 'webhook_trigger_not_found' } });
    expect(answer.body.message).toContain('svc webhook register');
    expect(await registeredSlugs(s)).not.toContain('planted');
    expect(await s.ctx.workflows.findTrigger('planted')).toBeUndefined();
    expect(await runCount(s)).toBe(0);
  });

  it('registering is a POST: refused from another site by the browser guard, taken from a script or the CLI', async () => {
    const s = await server();
    const planted = await plantedProject();
    const refused = await s.fetch(withCwd('/api/webhooks/register', planted.dir), {
      method: 'POST',
      headers: { ...CROSS_SITE, 'sec-fetch-dest': 'empty', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toBe('cross_origin_refused');
    const body = JSON.stringify({ event: 'push', delivery_id: 'after-refusal' });
    expect((await deliver(s.url, 'planted', body)).status).toBe(404);

    const registered = await s.json('POST', withCwd('/api/webhooks/register', planted.dir));
    expect(registered.status).toBe(200);
    expect(registered.body).toEqual({
      webhooks: [expect.objectContaining({ slug: 'planted', workflow: 'planted', secret_configured: true, secret_weak: false })],
    });
    const accepted = await deliver(s.url, 'planted', body);
    expect(accepted.status).toBe(202);
    expect((await s.ctx.engine.waitUntilSettled(accepted.body.run_id)).status).toBe('completed');
  });

  it('svc webhook register --cwd <dir> registers them (and lists them); svc workflow list there does not', async () => {
    const s = await server();
    const planted = await plantedProject();
    const env = { SVC_HOME: s.home, PUSH_SECRET: SECRET };
    const listed = await runSvcInProcess(['--url', s.url, 'workflow', 'list', '--cwd', planted.dir], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('webhook:planted');
    expect(await registeredSlugs(s)).not.toContain('planted');
    const registered = await runSvcInProcess(['--url', s.url, 'webhook', 'register'], env, { cwd: planted.dir });
    expect(registered.code, registered.stderr).toBe(0);
    expect(registered.stdout.trim().split('\n')).toEqual([['planted', 'planted', 'push', 'PUSH_SECRET (set)', 'delivery_id', '3600s'].join('\t')]);
    expect(await registeredSlugs(s)).toContain('planted');
  });

  it('no GET route changes what the server stores, whatever it is asked (cwd of a planted repository, cross-site)', async () => {
    const s = await server();
    const planted = await plantedProject();
    // Something of every kind stored: a run, a workspace (with its trigger), a conversation.
    const workspace = await plantedProject(['{ event: push, slug: ws-hook, secret_env: PUSH_SECRET, idempotency_key: delivery_id }'], 'in-workspace');
    const ws = (await s.json('POST', '/api/workspaces', { path: workspace.dir })).body;
    const conversation = (await s.json('POST', '/api/conversations', {})).body;
    const elsewhere = await project();
    await elsewhere.write('plain.yaml', ['name: plain', 'description: no triggers', 'nodes:', '  - id: only', '    bash: echo plain'].join('\n'));
    const started = await s.json('POST', '/api/workflows/plain/run', { message: 'hello', cwd: elsewhere.dir });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    await s.ctx.engine.waitUntilSettled(started.body.runId);
    await s.ctx.store.flush();
    const before = await snapshot(s.home);
    const registryBefore = await s.ctx.workflows.triggers();

    const params: Record<string, string> = {
      runId: started.body.runId,
      name: 'planted',
      platformId: 'wkr_none',
      conversationId: conversation.platform_conversation_id,
    };
    const gets = routes.filter((route) => route.method === 'GET');
    expect(gets.length).toBeGreaterThan(20);
    for (const route of gets) {
      const id = route.path.startsWith('/api/workspaces/') ? ws.id : conversation.platform_conversation_id;
      const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(name === 'id' ? id : (params[name] ?? 'x')));
      const query = route.query?.safeParse({ cwd: planted.dir }).success ? withCwd(path, planted.dir) : path;
      const abort = new AbortController();
      const response = await s.fetch(query, { headers: CROSS_SITE, signal: abort.signal });
      expect(response.status, `${route.path}: ${response.status}`).toBeLessThan(500);
      // A stream answers for as long as it is read: its headers are enough.
      if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) abort.abort();
      else await response.arrayBuffer();
    }
    await s.ctx.store.flush();
    expect(await snapshot(s.home)).toEqual(before);
    expect(await s.ctx.workflows.triggers()).toEqual(registryBefore);
    expect(registryBefore.map((t) => t.slug)).toEqual(['ws-hook']);
  });
});

describe('a secret anyone can guess', () => {
  const WEAK = {
    COLORTERM: 'truecolor',
    TERM_PROGRAM: 'Apple_Terminal',
    DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
    HOMEBREW_PREFIX: '/opt/homebrew',
    CLAUDECODE: '1',
    HOMEBREW_CACHE: '/Users/alice/Library/Caches/Homebrew/downloads/cache',
  };
  const triggers = [
    ...Object.keys(WEAK).map((name) => `{ event: push, slug: ${name.toLowerCase().replace(/_/g, '-')}, secret_env: ${name}, idempotency_key: delivery_id }`),
    '{ event: push, slug: strong, secret_env: PUSH_SECRET, idempotency_key: delivery_id }',
  ];

  it('takes no delivery: 503 webhook_secret_weak, saying which variable and never its value, and no run starts; a strong secret still works', async () => {
    const s = await server(WEAK);
    const planted = await plantedProject(triggers);
    await registerTriggers(s, planted.dir);
    for (const [name, value] of Object.entries(WEAK)) {
      const slug = name.toLowerCase().replace(/_/g, '-');
      const body = JSON.stringify({ event: 'push', delivery_id: `guessed-${slug}` });
      const answer = await deliver(s.url, slug, body, { signature: sign(body, value) });
      expect(answer.status, slug).toBe(503);
      expect(answer.body.error).toBe('webhook_secret_weak');
      expect(answer.body.message).toContain(name);
      if (value.length > 3) expect(answer.body.message).not.toContain(value);
    }
    expect(await runCount(s)).toBe(0);
    const refused = (await s.json('GET', '/api/webhooks/deliveries?outcome=webhook_secret_weak')).body.deliveries;
    expect(refused).toHaveLength(Object.keys(WEAK).length);
    expect(refused.every((d: { status: number; run_id: null }) => d.status === 503 && d.run_id === null)).toBe(true);

    const body = JSON.stringify({ event: 'push', delivery_id: 'strong-1' });
    const accepted = await deliver(s.url, 'strong', body);
    expect(accepted.status).toBe(202);
    expect((await s.ctx.engine.waitUntilSettled(accepted.body.run_id)).status).toBe('completed');
  });

  it("is reported where its value is known: the triggers' view, a listing's and a registration's errors", async () => {
    const s = await server(WEAK);
    const planted = await plantedProject(triggers);
    const registration = (await s.json('POST', withCwd('/api/webhooks/register', planted.dir))).body;
    const listing = (await s.json('GET', withCwd('/api/workflows', planted.dir))).body;
    const file = join(planted.workflowsDir, 'planted.yaml');
    expect(registration.errors).toEqual(listing.errors);
    expect(listing.errors).toHaveLength(Object.keys(WEAK).length);
    expect(listing.errors[0]).toEqual({
      filename: file,
      error: `${file}:11:51: triggers.webhook[0].secret_env: COLORTERM holds no secret: it has 9 characters, and a secret needs at least 32; deliveries to 'colorterm' are refused (503 webhook_secret_weak) until it does: set it to a random value, e.g. the output of \`openssl rand -hex 32\``,
    });
    expect(listing.errors[5].error).toContain('HOMEBREW_CACHE holds no secret: it is guessable');
    const views = Object.fromEntries((await s.json('GET', '/api/webhooks')).body.webhooks.map((w: { slug: string }) => [w.slug, w]));
    expect(views.colorterm).toMatchObject({ secret_configured: true, secret_weak: true });
    expect(views.strong).toMatchObject({ secret_configured: true, secret_weak: false });
    const cli = await runSvcInProcess(['--url', s.url, 'webhook', 'list'], { SVC_HOME: s.home });
    expect(cli.stdout).toContain('COLORTERM (weak)');
    expect(cli.stdout).toContain('PUSH_SECRET (set)');
  });

  it("a workspace's env value is judged the same way", async () => {
    const s = await server();
    const workspace = await plantedProject(['{ event: push, slug: ws-weak, secret_env: WS_SECRET, idempotency_key: delivery_id }']);
    const ws = (await s.json('POST', '/api/workspaces', { path: workspace.dir })).body;
    expect((await s.json('PUT', `/api/workspaces/${ws.id}/env`, { WS_SECRET: 'hunter2-hunter2-hunter2-hunter2-hunter2' })).status).toBe(200);
    const body = JSON.stringify({ event: 'push', delivery_id: 'ws-1' });
    const weak = await deliver(s.url, 'ws-weak', body, { signature: sign(body, 'hunter2-hunter2-hunter2-hunter2-hunter2') });
    expect(weak).toMatchObject({ status: 503, body: { error: 'webhook_secret_weak' } });
    expect(await runCount(s)).toBe(0);
    expect((await s.json('PUT', `/api/workspaces/${ws.id}/env`, { WS_SECRET: SECRET })).status).toBe(200);
    const accepted = await deliver(s.url, 'ws-weak', body);
    expect(accepted.status).toBe(202);
    await s.ctx.engine.waitUntilSettled(accepted.body.run_id);
  });
});

/** Every stored file under `home` (logs aside) by path, with a hash of its bytes. */
async function snapshot(home: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (path !== join(home, 'logs')) await walk(path);
      } else {
        files[relative(home, path)] = createHash('sha256')
          .update(await readFile(path))
          .digest('hex');
      }
    }
  };
  await walk(home);
  return files;
}
