// The bench's child processes and temporary folders: servers started and stopped, everything
// removed when the bench ends however it ends (run.mjs and footprint.mjs share these).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** The svc binary measured; `SVC_BENCH_SVC` names another build's (an A/B of two checkouts). */
export const SVC_BIN = process.env.SVC_BENCH_SVC ?? join(ROOT, 'bin', 'svc.mjs');

const children = new Set();
const tempDirs = new Set();

/** Kills the servers still running and removes the temporary folders (also on exit). */
export function cleanup() {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}
process.on('exit', cleanup);

/** A temporary folder, removed by `cleanup`. */
export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

export const round = (value, digits = 2) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : value);

export function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The reference: a raw node:http server answering what `/api/health` answers — the same report,
 * built and serialized for each request (its uptime changes), with the same content type.
 */
const HELLO_SERVER = `
import { createServer } from 'node:http';
const startedAt = Date.now();
const server = createServer((req, res) => {
  const body = JSON.stringify({
    status: 'ok',
    adapter: { name: 'claude', available: false, model: null },
    concurrency: { max: 4, running: 0, queued: 0 },
    runningWorkflows: 0,
    version: '0.1.0',
    uptimeMs: Date.now() - startedAt,
  });
  res.writeHead(200, { 'content-type': 'application/json;charset=UTF-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
process.on('SIGTERM', () => process.exit(0));
`;

/** Spawns `node <args>` and resolves with its URL once it prints `listening on <url>` (and its stderr so far, as it grows). */
export function startServerProcess(args, { env = {}, cwd } = {}) {
  const startedAt = performance.now();
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk) => (err += chunk));
  const ready = new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening: ${err.trim()}`)));
    child.once('error', reject);
  });
  return withTimeout(ready, 20_000, `${args.join(' ')} start`).then((url) => ({ child, url, startedAt, stderr: () => err }));
}

export const startHello = () => startServerProcess(['--input-type=module', '-e', HELLO_SERVER]);

/** `svc serve` on a port of its own in a fresh home, started in that home (no workflows of the bench's cwd). */
export function startSvc(prefix = 'svc-bench-') {
  const home = tempDir(prefix);
  return startServerProcess([SVC_BIN, 'serve'], { env: { PORT: '0', SVC_HOME: home, SVC_LOG_LEVEL: 'warn' }, cwd: home });
}

export async function stopServer({ child }) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await withTimeout(exited, 10_000, 'server stop').catch(() => child.kill('SIGKILL'));
}

/** One autocannon load of `url` for `seconds` with `connections` open, bounded in time. */
export function loadOnce(autocannon, url, seconds, connections) {
  return withTimeout(
    new Promise((resolve, reject) => autocannon({ url, connections, duration: seconds }, (error, result) => (error ? reject(error) : resolve(result)))),
    (seconds + 15) * 1000,
    `autocannon ${url}`,
  );
}
