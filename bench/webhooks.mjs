// Webhook benchmarks (issue 10), run by `npm run bench` through bench/run.mjs on the built code:
// signed deliveries per second against `svc serve` (a child process, in a project with a one-node
// workflow), accepted (a unique key each: a durable dedupe record and a run each) and duplicate
// (the same delivery again: verify, look up, answer), each ÷ a raw node:http hello-JSON server
// measured in the same run. Rows: { name, value, unit, reference, ratio, target }.
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServerProcess } from './processes.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SVC_BIN = join(ROOT, 'bin', 'svc.mjs');
const SECONDS = 3;
const CONNECTIONS = 10;
// As `openssl rand -hex 32` makes one: a guessable secret takes no delivery (503 webhook_secret_weak).
const SECRET = '9c41d0e7a2b85f36c1e04d9b7a62f8e3d5c07b19a4e6f2830d5b7c9e1a3f6042';

const HELLO_SERVER = `
import { createServer } from 'node:http';
const body = JSON.stringify({ status: 'ok' });
createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
}).listen(0, '127.0.0.1', function () { console.log('listening on http://127.0.0.1:' + this.address().port); });
`;

const WORKFLOW = `name: hook
description: one node
nodes:
  - id: a
    bash: "true"
triggers:
  webhook:
    - { event: push, slug: bench, secret_env: BENCH_SECRET, idempotency_key: id }
`;

const sign = (body) => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;

function load(autocannon, options) {
  return new Promise((resolve, reject) =>
    autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options }, (error, result) => (error ? reject(error) : resolve(result))),
  );
}

export async function benchWebhooks() {
  const { default: autocannon } = await import('autocannon');
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-hooks-'));
  const project = join(dir, 'project');
  mkdirSync(join(project, '.svc', 'workflows'), { recursive: true });
  writeFileSync(join(project, '.svc', 'workflows', 'hook.yaml'), WORKFLOW);
  const hello = await startServerProcess(['--input-type=module', '-e', HELLO_SERVER]);
  const svc = await startServerProcess([SVC_BIN, 'serve'], {
    cwd: project,
    env: { PORT: '0', SVC_HOME: join(dir, 'home'), SVC_LOG_LEVEL: 'warn', BENCH_SECRET: SECRET },
  });
  try {
    const duplicate = JSON.stringify({ event: 'push', id: 'the-same-one' });
    const post = (url, body) => ({ url, method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-signature-256': sign(body) }, body });
    const warm = await load(autocannon, post(`${svc.url}/webhooks/workflow/bench`, duplicate));
    if (warm.non2xx) throw new Error(`duplicate warm-up: ${warm.non2xx} non-2xx answers`);
    const reference = (await load(autocannon, post(`${hello.url}/`, duplicate))).requests.average;
    const dup = await load(autocannon, post(`${svc.url}/webhooks/workflow/bench`, duplicate));
    if (dup.non2xx || dup.errors) throw new Error(`duplicates: ${dup.non2xx} non-2xx, ${dup.errors} errors`);
    let n = 0;
    const accepted = await load(autocannon, {
      url: `${svc.url}/webhooks/workflow/bench`,
      requests: [
        {
          method: 'POST',
          setupRequest: (request) => {
            const body = JSON.stringify({ event: 'push', id: `unique-${process.pid}-${n++}` });
            return { ...request, body, headers: { 'content-type': 'application/json', 'x-svc-signature-256': sign(body) } };
          },
        },
      ],
    });
    if (accepted.non2xx || accepted.errors) throw new Error(`accepted: ${accepted.non2xx} non-2xx, ${accepted.errors} errors`);
    const row = (name, rate, target) => ({
      name: `webhook ${name} deliveries/s ÷ raw node:http`,
      value: Math.round(rate),
      unit: 'req/s',
      reference: Math.round(reference),
      ratio: Number((rate / reference).toFixed(2)),
      ...(target ? { target } : {}),
    });
    return [row('accepted (unique keys, a run each)', accepted.requests.average), row('duplicate', dup.requests.average, '≥ 0.3')];
  } finally {
    for (const { child } of [hello, svc]) if (child.exitCode === null) child.kill('SIGKILL');
    // Runs started by the accepted deliveries may still be writing: let the kill land first.
    await new Promise((resolve) => setTimeout(resolve, 300));
    rmSync(dir, { recursive: true, force: true });
  }
}
