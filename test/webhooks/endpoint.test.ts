// The webhook endpoint through a real socket: every row of the spec's two tables, the order of the
// checks, the signature cases, the five variables and TRIGGER_PAYLOAD_FILE, the delivery history.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_CLAUDE } from '../helpers/runs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeProject, type Project } from '../helpers/workflow-project.js';
import { deliver, deliverChunked, hookWorkflow, makeHookProject, registerTriggers, SECRET, sign } from '../helpers/webhooks.js';

let server: TestServer;
let project: Project;
let counter = 0;
const uniqueKey = () => `d-${Date.now()}-${counter++}`;
const push = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ event: 'push', delivery_id: uniqueKey(), ref: 'refs/heads/main', forced: false, ...extra });
const post = (slug: string, body: string | Uint8Array, options?: Parameters<typeof deliver>[3]) => deliver(server.url, slug, body, options);

beforeAll(async () => {
  project = await makeHookProject();
  server = await startTestServer({ socket: true, cwd: project.dir, env: { PUSH_SECRET: SECRET, SVC_CLAUDE_BIN: FAKE_CLAUDE } });
  await registerTriggers(server, project.dir);
});
afterAll(async () => {
  await server?.stop();
  await project?.remove();
});

async function settledOutput(runId: string) {
  const run = await server.ctx.engine.waitUntilSettled(runId);
  return { run, output: run.nodes.show?.output ?? '' };
}

describe('processing outcomes (the first table)', () => {
  it('202 {accepted, run_id}: a webhook run with the raw payload as its message and the five variables', async () => {
    const body = push({ note: 'héllo "quoted"' });
    const answer = await post('on-push', body);
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ accepted: true, run_id: expect.stringMatching(/^run_/) });
    const { run, output } = await settledOutput(answer.body.run_id);
    expect(run.status).toBe('completed');
    expect(run.trigger).toBe('webhook');
    expect(run.message).toBe(body);
    expect(run.cwd).toBe(project.dir);
    const key = JSON.parse(body).delivery_id as string;
    const lines = output.trim().split('\n');
    expect(lines.slice(0, 3)).toEqual(['type=webhook', 'event=push', `key=${key}`]);
    expect(lines[3]).toMatch(/^at=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(lines[4]).toBe(`len=${body.length}`);
    expect(lines[5]).toBe(`file=${createHash('sha256').update(body).digest('hex')}`);
    expect(lines[6]).toBe('same-as-file');
    expect(run.variables).toMatchObject({ TRIGGER_TYPE: 'webhook', TRIGGER_PAYLOAD: body, WEBHOOK_EVENT: 'push', WEBHOOK_IDEMPOTENCY_KEY: key });
    expect(run.variables.TRIGGER_PAYLOAD_FILE).toBe(join(server.ctx.engine.artifactsDir(run.id), 'trigger-payload.json'));
  });

  it('prompt templates get the same variables as text', async () => {
    const body = JSON.stringify({ event: 'push', delivery_id: uniqueKey(), n: 1 });
    const answer = await post('prompted', body);
    expect(answer.status).toBe(202);
    const run = await server.ctx.engine.waitUntilSettled(answer.body.run_id);
    expect(run.status).toBe('completed');
    const key = JSON.parse(body).delivery_id as string;
    expect(run.nodes.ask!.output).toMatch(new RegExp(`^fake reply: type=webhook event=push key=${key} at=\\S+Z payload=`));
    expect(run.nodes.ask!.output!.endsWith(`payload=${body}`)).toBe(true);
  });

  it('200 {skipped: "duplicate", run_id, first_received_at}: the same key and body again', async () => {
    const body = push();
    const first = await post('on-push', body);
    expect(first.status).toBe(202);
    const again = await post('on-push', body);
    expect(again).toEqual({ status: 200, body: { skipped: 'duplicate', run_id: first.body.run_id, first_received_at: expect.any(String) } });
    expect(Date.parse(again.body.first_received_at)).not.toBeNaN();
    await server.ctx.engine.waitUntilSettled(first.body.run_id);
  });

  it('200 {skipped: "event_mismatch"}: a valid signature, another event', async () => {
    expect(await post('on-push', push({ event: 'release' }))).toEqual({ status: 200, body: { skipped: 'event_mismatch' } });
    expect(await post('on-push', JSON.stringify({ delivery_id: uniqueKey() }))).toEqual({ status: 200, body: { skipped: 'event_mismatch' } });
  });

  it('200 {skipped: "filter_mismatch"}: a valid signature, the filter does not match (values compared with their type)', async () => {
    expect(await post('main-only', push({ ref: 'refs/heads/dev' }))).toEqual({ status: 200, body: { skipped: 'filter_mismatch' } });
    expect(await post('main-only', push({ forced: 'false' }))).toEqual({ status: 200, body: { skipped: 'filter_mismatch' } });
    const match = await post('main-only', push());
    expect(match.status).toBe(202);
    await server.ctx.engine.waitUntilSettled(match.body.run_id);
  });
});

describe('errors (the second table)', () => {
  it('400 invalid_idempotency_key: missing, null, object, array or empty string; numbers and booleans are keys', async () => {
    for (const key of [undefined, null, { a: 1 }, [1], '']) {
      const body = JSON.stringify({ event: 'push', ...(key === undefined ? {} : { delivery_id: key }) });
      const answer = await post('on-push', body);
      expect(answer.status, JSON.stringify(key)).toBe(400);
      expect(answer.body.error).toBe('invalid_idempotency_key');
    }
    for (const key of [Date.now() + counter++, true]) {
      const answer = await post('on-push', JSON.stringify({ event: 'push', delivery_id: key, n: counter++ }));
      expect([200, 202]).toContain(answer.status);
      if (answer.status === 202) await server.ctx.engine.waitUntilSettled(answer.body.run_id);
    }
  });

  it('400 invalid_idempotency_key: a key of 5,000 characters (keys are bounded)', async () => {
    const huge = JSON.stringify({ event: 'push', delivery_id: 'k'.repeat(5000) });
    const answer = await post('on-push', huge);
    expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_idempotency_key' } });
  });

  it('401 invalid_signature: missing header, another secret, a body reformatted after signing, a malformed header', async () => {
    const body = push();
    const cases: Array<[string, string | null, string]> = [
      ['missing', null, body],
      ['another secret', sign(body, 'not-the-secret'), body],
      ['reformatted', sign(body), JSON.stringify(JSON.parse(body), null, 2)],
      ['no prefix', sign(body).slice('sha256='.length), body],
      ['sha1 prefix', `sha1=${sign(body).slice(7)}`, body],
      ['truncated hex', sign(body).slice(0, -2), body],
      ['empty', '', body],
    ];
    for (const [name, signature, sent] of cases) {
      const answer = await post('on-push', sent, { signature });
      expect(answer.status, name).toBe(401);
      expect(answer.body.error, name).toBe('invalid_signature');
    }
  });

  it('a signature made by another producer (openssl, as shell scripts and CI systems sign) verifies', async () => {
    const body = push({ from: 'openssl' });
    const { stdout } = await promisify(execFile)('sh', ['-c', `printf '%s' "$BODY" | openssl dgst -sha256 -hmac "$KEY"`], {
      env: { ...process.env, BODY: body, KEY: SECRET },
    });
    const hex = /([0-9a-f]{64})\s*$/.exec(stdout)![1];
    const answer = await post('on-push', body, { signature: `sha256=${hex}` });
    expect(answer.status).toBe(202);
    await server.ctx.engine.waitUntilSettled(answer.body.run_id);
  });

  it('uppercase hex verifies (the hex is compared as bytes; docs/decisions.md, "Webhooks")', async () => {
    const body = push();
    const answer = await post('on-push', body, { signature: `sha256=${sign(body).slice(7).toUpperCase()}` });
    expect(answer.status).toBe(202);
    await server.ctx.engine.waitUntilSettled(answer.body.run_id);
  });

  it('404 webhook_trigger_not_found: no trigger has the slug', async () => {
    const answer = await post('nobody-home', push());
    expect(answer.status).toBe(404);
    expect(answer.body.error).toBe('webhook_trigger_not_found');
  });

  it('409 idempotency_key_conflict: the same key with another body', async () => {
    const key = uniqueKey();
    const first = await post('on-push', push({ delivery_id: key }));
    expect(first.status).toBe(202);
    const other = await post('on-push', push({ delivery_id: key, extra: 1 }));
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('idempotency_key_conflict');
    await server.ctx.engine.waitUntilSettled(first.body.run_id);
  });

  it('413 payload_too_large: above 256 KiB by Content-Length, and a chunked body cut off while streaming', async () => {
    const big = JSON.stringify({ event: 'push', delivery_id: uniqueKey(), pad: 'x'.repeat(256 * 1024) });
    const answer = await post('on-push', big);
    expect(answer.status).toBe(413);
    expect(answer.body.error).toBe('payload_too_large');
    // Exactly at the limit is fine (it is then checked further: here a 200 skipped for its event).
    const exact = Buffer.alloc(256 * 1024, 0x20);
    const head = Buffer.from('{"event":"other"}');
    head.copy(exact);
    expect((await post('on-push', exact)).status).toBe(200);
    const chunks = Array.from({ length: 40 }, () => Buffer.alloc(8 * 1024, 0x61));
    const chunked = await deliverChunked(server.url, 'on-push', chunks, sign(Buffer.concat(chunks)));
    expect(chunked.status).toBe(413);
    expect(chunked.body.error).toBe('payload_too_large');
  });

  it('503 webhook_secret_missing: the variable named by secret_env is not set', async () => {
    const answer = await post('no-secret', push(), { signature: null });
    expect(answer.status).toBe(503);
    expect(answer.body.error).toBe('webhook_secret_missing');
  });

  it('400 invalid_json: a signed body that is not a JSON object', async () => {
    for (const body of ['{not json', '[1,2]', '"text"', '42', 'null', '', Buffer.from([0xff, 0xfe, 0x7b, 0x7d])]) {
      const answer = await post('on-push', body);
      expect(answer.status, String(body)).toBe(400);
      expect(answer.body.error).toBe('invalid_json');
    }
  });

  it('409 workflow_not_available: the trigger is registered but its workflow file was removed', async () => {
    await unlink(join(project.workflowsDir, 'gone.yaml'));
    const answer = await post('gone', push());
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe('workflow_not_available');
    // Still so after a discovery pass of that directory (the slug is kept as a tombstone), and not listed.
    await registerTriggers(server, project.dir);
    const again = await post('gone', push());
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('workflow_not_available');
    expect((await server.json('GET', '/api/webhooks')).body.webhooks.map((w: { slug: string }) => w.slug)).not.toContain('gone');
    // Another workflow may claim the slug afterwards.
    await project.write('reborn.yaml', hookWorkflow('reborn', ['{ event: push, slug: gone, secret_env: PUSH_SECRET, idempotency_key: delivery_id }']));
    await registerTriggers(server, project.dir);
    const reborn = await post('gone', push());
    expect(reborn.status).toBe(202);
    expect((await server.ctx.engine.waitUntilSettled(reborn.body.run_id)).workflow).toBe('reborn');
  });

  it("409 workflow_not_available: the trigger's directory does not exist on this server (removed, or another machine's path)", async () => {
    const elsewhere = await makeProject();
    await elsewhere.write('far.yaml', hookWorkflow('far', ['{ event: push, slug: far-away, secret_env: PUSH_SECRET, idempotency_key: delivery_id }']));
    await registerTriggers(server, elsewhere.dir);
    await elsewhere.remove();
    const answer = await post('far-away', push());
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe('workflow_not_available');
    expect(answer.body.message).toContain(elsewhere.dir);
    const [latest] = (await server.json('GET', '/api/webhooks/deliveries?slug=far-away')).body.deliveries;
    expect(latest).toMatchObject({ outcome: 'workflow_not_available', status: 409, run_id: null });
  });
});

describe('the order of the checks', () => {
  it('size before slug, slug before secret, secret before signature, signature before JSON', async () => {
    const big = 'x'.repeat(256 * 1024 + 1);
    expect((await post('nobody-home', big, { signature: null })).status).toBe(413);
    expect((await post('nobody-home', 'garbage', { signature: null })).status).toBe(404);
    expect((await post('no-secret', 'garbage', { signature: null })).status).toBe(503);
    expect((await post('on-push', 'garbage', { signature: 'sha256=00' })).status).toBe(401);
    expect((await post('on-push', 'garbage')).body.error).toBe('invalid_json');
  });

  it('event and filter before the key; the key before dedupe; dedupe before the workflow check', async () => {
    expect((await post('on-push', JSON.stringify({ event: 'release' }))).body).toEqual({ skipped: 'event_mismatch' });
    expect((await post('main-only', JSON.stringify({ event: 'push', ref: 'x' }))).body).toEqual({ skipped: 'filter_mismatch' });
    expect((await post('main-only', JSON.stringify({ event: 'push', ref: 'refs/heads/main', forced: false }))).body.error).toBe('invalid_idempotency_key');
  });
});

describe('the delivery history', () => {
  it('GET /api/webhooks/deliveries: newest first, filtered by slug and outcome, never a secret or signature', async () => {
    const key = uniqueKey();
    const accepted = await post('on-push', push({ delivery_id: key }));
    await post('on-push', push({ delivery_id: key }), { signature: 'sha256=bad' });
    const { status, body } = await server.json('GET', '/api/webhooks/deliveries?slug=on-push&limit=2');
    expect(status).toBe(200);
    expect(body.deliveries).toHaveLength(2);
    expect(body.deliveries[0]).toMatchObject({ slug: 'on-push', outcome: 'invalid_signature', status: 401 });
    expect(body.deliveries[1]).toMatchObject({
      slug: 'on-push',
      workflow: 'hook',
      outcome: 'accepted',
      status: 202,
      key,
      run_id: accepted.body.run_id,
      event: 'push',
    });
    const refused = await server.json('GET', '/api/webhooks/deliveries?outcome=webhook_secret_missing');
    expect(refused.body.deliveries.length).toBeGreaterThan(0);
    expect(refused.body.deliveries.every((d: any) => d.outcome === 'webhook_secret_missing' && d.slug === 'no-secret')).toBe(true);
    const all = JSON.stringify((await server.json('GET', '/api/webhooks/deliveries?limit=1000')).body);
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain('sha256=');
    expect((await server.json('GET', '/api/webhooks/deliveries?outcome=nope')).status).toBe(400);
    await server.ctx.engine.waitUntilSettled(accepted.body.run_id);
  });

  it('GET /api/webhooks: the triggers and whether each secret is configured, never its value', async () => {
    const { status, body } = await server.json('GET', '/api/webhooks');
    expect(status).toBe(200);
    const bySlug = Object.fromEntries(body.webhooks.map((w: any) => [w.slug, w]));
    expect(bySlug['on-push']).toMatchObject({ workflow: 'hook', event: 'push', secret_env: 'PUSH_SECRET', secret_configured: true, dedupe_window_sec: 3600 });
    expect(bySlug['no-secret'].secret_configured).toBe(false);
    expect(JSON.stringify(body)).not.toContain(SECRET);
  });
});
