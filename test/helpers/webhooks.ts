// Shared helpers of the webhook tests: a project with webhook-triggered workflows, a real server
// that sees it, and deliveries signed like a producer signs them (node:crypto, over the exact bytes).
import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import type { TestServer } from './server.js';
import { makeProject, withCwd, type Project } from './workflow-project.js';

/** A secret as `openssl rand -hex 32` makes one: a guessable value is refused (webhook_secret_weak). */
export const SECRET = 'a6b11141667acbbadecd871f521c358e52c94c38e9b533fe9947704f853ca853';
/** Another, for tests that need two (a workspace's and the server's). */
export const OTHER_SECRET = '5da09cbd4b450fbb88f1eac13d9bd6db8ccf79f2ac6032374d9f81710bae91e6';
export const sign = (body: string | Uint8Array, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** The bash node of the hook workflow prints what its environment carries. */
const SHOW_SCRIPT = [
  'printf "%s\\n" "type=$TRIGGER_TYPE" "event=$WEBHOOK_EVENT" "key=$WEBHOOK_IDEMPOTENCY_KEY" "at=$WEBHOOK_RECEIVED_AT" "len=${#TRIGGER_PAYLOAD}"',
  'echo "file=$(sha256sum < "$TRIGGER_PAYLOAD_FILE" | cut -d" " -f1)"',
  '[ "$TRIGGER_PAYLOAD" = "$(cat "$TRIGGER_PAYLOAD_FILE")" ] && echo same-as-file || echo differs-from-file',
].join('\n');

export function hookWorkflow(name: string, triggers: string[]): string {
  return [
    `name: ${name}`,
    `description: reacts to pushes`,
    'nodes:',
    '  - id: show',
    '    bash: |',
    ...SHOW_SCRIPT.split('\n').map((line) => `      ${line}`),
    'triggers:',
    '  webhook:',
    ...triggers.map((t) => `    - ${t}`),
  ].join('\n');
}

/** A project with `hook` (slugs on-push, main-only, no-secret, short) and `gone` (slug gone). */
export async function makeHookProject(): Promise<Project> {
  const project = await makeProject();
  await project.write(
    'hook.yaml',
    hookWorkflow('hook', [
      '{ event: push, slug: on-push, secret_env: PUSH_SECRET, idempotency_key: delivery_id }',
      '{ event: push, slug: main-only, secret_env: PUSH_SECRET, idempotency_key: delivery_id, filter: { ref: refs/heads/main, forced: false } }',
      '{ event: push, slug: no-secret, secret_env: UNSET_SECRET_FOR_TESTS, idempotency_key: delivery_id }',
      '{ event: push, slug: short, secret_env: PUSH_SECRET, idempotency_key: delivery_id, dedupe_window_sec: 1 }',
    ]),
  );
  await project.write(
    'prompted.yaml',
    [
      'name: prompted',
      'description: the trigger variables in a prompt template',
      'nodes:',
      '  - id: ask',
      '    prompt: "type=$TRIGGER_TYPE event=$WEBHOOK_EVENT key=$WEBHOOK_IDEMPOTENCY_KEY at=$WEBHOOK_RECEIVED_AT payload=$TRIGGER_PAYLOAD"',
      'triggers:',
      '  webhook:',
      '    - { event: push, slug: prompted, secret_env: PUSH_SECRET, idempotency_key: delivery_id }',
    ].join('\n'),
  );
  await project.write('gone.yaml', hookWorkflow('gone', ['{ event: push, slug: gone, secret_env: PUSH_SECRET, idempotency_key: delivery_id }']));
  return project;
}

export interface Delivery {
  status: number;
  body: any;
}

/**
 * Posts `body` (exact bytes) to `/webhooks/workflow/<slug>`: over a real socket to a base URL, or to
 * a test server through its own `fetch` (in process unless it has a socket); signed with SECRET
 * unless `signature` says otherwise.
 */
export async function deliver(
  to: string | Pick<TestServer, 'fetch'>,
  slug: string,
  body: string | Uint8Array,
  options: { signature?: string | null; headers?: Record<string, string> } = {},
): Promise<Delivery> {
  const signature = options.signature === undefined ? sign(body) : options.signature;
  const init: RequestInit = {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'x-svc-signature-256': signature }), ...options.headers },
    body,
  };
  const path = `/webhooks/workflow/${slug}`;
  const response = typeof to === 'string' ? await fetch(`${to}${path}`, init) : await to.fetch(path, init);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** Posts a body in chunks without Content-Length (chunked transfer encoding). */
export function deliverChunked(baseUrl: string, slug: string, chunks: Buffer[], signature: string): Promise<Delivery> {
  return new Promise((resolve, reject) => {
    const url = new URL(`/webhooks/workflow/${slug}`, baseUrl);
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-signature-256': signature } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    // The server may answer 413 and close before every chunk is written.
    req.on('error', reject);
    let i = 0;
    const next = () => {
      if (i >= chunks.length) return req.end();
      const ok = req.write(chunks[i++]);
      if (ok) setImmediate(next);
      else req.once('drain', next);
    };
    next();
  });
}

/** Registers the triggers of `dir` the explicit way (`svc webhook register`): a listing never does. */
export async function registerTriggers(server: Pick<TestServer, 'json'>, dir: string): Promise<void> {
  const { status, body } = await server.json('POST', withCwd('/api/webhooks/register', dir));
  if (status !== 200) throw new Error(`registering the triggers of ${dir} answered ${status}: ${JSON.stringify(body)}`);
}
