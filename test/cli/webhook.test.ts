// `svc webhook list|deliveries|test` as a user types them, against a real server: the test
// command signs the exact bytes it sends (so the server accepts them), exits 0 for 2xx and 1
// otherwise, and --dry-run prints a curl command that, run, makes the same delivery.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import type { Project } from '../helpers/workflow-project.js';
import { makeHookProject, registerTriggers, SECRET, sign } from '../helpers/webhooks.js';

let server: TestServer;
let project: Project;
beforeAll(async () => {
  project = await makeHookProject();
  server = await startTestServer({ socket: true, env: { PUSH_SECRET: SECRET } });
  await registerTriggers(server, project.dir);
});
afterAll(async () => {
  await server?.stop();
  await project?.remove();
});

const cli = (args: string[], options: { env?: Record<string, string | undefined>; input?: string | Buffer } = {}) =>
  runSvcInProcess(['--url', server.url, ...args], { SVC_HOME: server.home, PUSH_SECRET: SECRET, ...options.env }, { input: options.input });

describe('svc webhook', () => {
  it('list: slug, workflow, event, whether the secret is set — never its value', async () => {
    const listed = await cli(['webhook', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines).toContain(['on-push', 'hook', 'push', 'PUSH_SECRET (set)', 'delivery_id', '3600s'].join('\t'));
    expect(lines.find((l) => l.startsWith('no-secret\t'))).toContain('UNSET_SECRET_FOR_TESTS (missing)');
    expect(listed.stdout).not.toContain(SECRET);
  });

  it('test: builds a payload that matches the trigger, signs it, posts it: 202 and exit 0; the same key again is a duplicate', async () => {
    const sent = await cli(['webhook', 'test', 'main-only', '--key', 'cli-1']);
    expect(sent.code, sent.stderr).toBe(0);
    const match = /^202 (\{.*\})$/m.exec(sent.stdout);
    expect(match, sent.stdout).not.toBeNull();
    const runId = JSON.parse(match![1]!).run_id as string;
    const run = await server.ctx.engine.waitUntilSettled(runId);
    expect(JSON.parse(run.message)).toEqual({ ref: 'refs/heads/main', forced: false, event: 'push', delivery_id: 'cli-1' });
    const again = await cli(['webhook', 'test', 'main-only', '--key', 'cli-1', '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ status: 200, body: { skipped: 'duplicate', run_id: runId, first_received_at: expect.any(String) } });
  });

  it('test: exit 1 for a non-2xx answer (a wrong secret is 401, an unknown slug with a payload 404)', async () => {
    const wrong = await cli(['webhook', 'test', 'on-push', '--secret', 'not-it']);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toMatch(/^401 .*invalid_signature/);
    const unknown = await cli(['webhook', 'test', 'nobody', '--payload', '-', '--secret', 'x'], { input: '{}' });
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toMatch(/^404 .*webhook_trigger_not_found/);
    const noSecret = await cli(['webhook', 'test', 'on-push'], { env: { PUSH_SECRET: undefined } });
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toContain('PUSH_SECRET is not set');
  });

  it('test --payload <file>: the exact bytes (whitespace and all) are what is signed and sent; --secret-env names the variable', async () => {
    const file = join(project.dir, 'payload.json');
    const text = '{ "event": "push",\n  "delivery_id": "file-1" }\n';
    await writeFile(file, text);
    const sent = await cli(['webhook', 'test', 'on-push', '--payload', file, '--secret-env', 'MY_SECRET'], {
      env: { MY_SECRET: SECRET, PUSH_SECRET: undefined },
    });
    expect(sent.code, sent.stdout + sent.stderr).toBe(0);
    const runId = JSON.parse(sent.stdout.slice(4)).run_id as string;
    expect((await server.ctx.engine.waitUntilSettled(runId)).message).toBe(text);
  });

  it('test --dry-run prints a curl command with the signature; run by a shell it makes the delivery', async () => {
    const dry = await cli(['webhook', 'test', 'on-push', '--key', "it's-dry", '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    const command = dry.stdout.trim();
    expect(command).toMatch(/^curl -sS -X POST '.*\/webhooks\/workflow\/on-push' /);
    const body = JSON.stringify({ event: 'push', delivery_id: "it's-dry" });
    expect(command).toContain(`x-svc-signature-256: ${sign(body)}`);
    expect((await server.ctx.engine.list({ workflow: 'hook', limit: 200 })).runs.some((r) => r.message === body)).toBe(false);
    const { stdout } = await promisify(execFile)('sh', ['-c', command]);
    const answer = JSON.parse(stdout);
    expect(answer).toMatchObject({ accepted: true });
    await server.ctx.engine.waitUntilSettled(answer.run_id);
  });

  it('deliveries [slug]: newest first, with outcomes', async () => {
    const listed = await cli(['webhook', 'deliveries', 'on-push', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const { deliveries } = JSON.parse(listed.stdout);
    expect(deliveries.length).toBeGreaterThan(0);
    expect(deliveries.every((d: { slug: string }) => d.slug === 'on-push')).toBe(true);
    expect(deliveries[0].outcome).toBe('accepted');
    const table = await cli(['webhook', 'deliveries', '--outcome', 'invalid_signature']);
    expect(table.stdout).toMatch(/\ton-push\t401\tinvalid_signature\t/);
  });
  it('test --dry-run with the payload on stdin prints a command that sends the very bytes signed (not UTF-8 text)', async () => {
    const bytes = Buffer.concat([Buffer.from('{"event":"push","delivery_id":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const dry = await cli(['webhook', 'test', 'on-push', '--payload', '-', '--dry-run'], { input: bytes });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`x-svc-signature-256: ${sign(bytes)}`);
    expect(dry.stdout).toMatch(/--data-binary '@[^']+payload\.json'/);
    const { stdout } = await promisify(execFile)('sh', ['-c', dry.stdout.trim()]);
    // Past the signature check (a 401 comes first): the bytes sent are the bytes signed. Not UTF-8,
    // they are no JSON the server takes, which is the next check.
    expect(JSON.parse(stdout)).toMatchObject({ error: 'invalid_json' });
  });
});
