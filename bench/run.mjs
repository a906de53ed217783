#!/usr/bin/env node
// `npm run bench` (build, then this): one table of numbers measured in this run, each set against
// a reference measured in the same run, so the ratios mean the same on a laptop and a CI box
// (STYLE.md: benchmarks report ratios and never gate CI on an absolute time). Not a test.
//
// Core rows (issue 2): GET /health and GET /api/health throughput ÷ a raw node:http hello-JSON
// server (autocannon, each server in its own child process); `svc --version` wall time ÷ `node -e 0`.
//
// Other modules add rows: when `bench/footprint.mjs` (export `benchFootprint()`: idle `svc serve`
// RSS, start → first /api/health 200 ÷ `node -e 0`, a 20-node bash chain ÷ 20 raw spawns,
// /api/health req/s ÷ raw node:http — issue 22), `bench/workflows.mjs` (export `benchWorkflows()`),
// `bench/engine.mjs` (export `benchEngine()`), `bench/conversations.mjs` (`benchConversations()`), `bench/webhooks.mjs`
// (`benchWebhooks()`), `bench/benchmarks.mjs` (`benchBenchmarks()`), `bench/streams.mjs` (`benchStreams()`: server RSS
// with 500 SSE clients that never read), `bench/postgres.mjs` (`benchPostgres()`) or `bench/sandbox.mjs`
// (`benchSandbox()`: the start-up a sandbox adds to a bash node and to a real agent's node — issue 30)
// or `bench/memory.mjs` (`benchMemory()`: a 20-node chain with process trees sampled ÷ not — issue 33)
// or `bench/setup-cache.mjs` (`benchSetupCache()`: a 10,000-file setup restored from the cache, or
// taken prepared from a pool, and the disk ten such worktrees take — issue 35)
// or `bench/tracing.mjs` (`benchTracing()`: the start-up tracing adds when it is off, 0, and what
// loading the SDK costs when it is on — issue 33) exist they are imported and their rows join the table.
// A row is `{ name, value, unit, reference?, ratio?, target? }`. `target` is a string such as
// '≥ 0.85', '≤ 1.6', '>= 10', '100%' or '0'; it applies to `ratio` when the row has one, else to
// `value` (a bare number means "equal to"). Rows with a target get PASS or MISS.
//
// Bounded: every wait has a time limit, a watchdog ends the whole run, and every child process is
// killed on the way out. Flags: --no-modules (core rows only), --json (rows as JSON too).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { median } from './measure.mjs';
import { fileURLToPath } from 'node:url';
import { loadOnce, round, startHello, startSvc, stopServer, SVC_BIN, withTimeout } from './processes.mjs';

const args = new Set(process.argv.slice(2));

const LOAD_SECONDS = 3;
const WARMUP_SECONDS = 3;
const ROUNDS = 3;
const CONNECTIONS = 50;
const SPAWN_REPS = 15;
// The setup cache module runs about forty runs of a 10,000-file setup, cold, cached and pooled.
const MODULE_TIMEOUT_MS = 360_000;
const WATCHDOG_MS = 12 * 60_000;

// ---- process hygiene ---------------------------------------------------------------------------

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping\n`);
    process.exit(130);
  });
}
const watchdog = setTimeout(() => {
  process.stderr.write(`bench: gave up after ${WATCHDOG_MS / 60_000} minutes\n`);
  process.exit(1);
}, WATCHDOG_MS);
watchdog.unref();

const ROOT = fileURLToPath(new URL('../', import.meta.url));

// ---- measurements ------------------------------------------------------------------------------

/**
 * Requests per second of /health and /api/health against the hello server. Both servers run at
 * once (an idle one costs nothing), are warmed up first (the JIT needs a few seconds of traffic),
 * then measured in interleaved rounds so drift on a shared machine hits all three alike.
 */
async function measureThroughput() {
  const { default: autocannon } = await import('autocannon');
  const hello = await startHello();
  const svc = await startSvc();
  try {
    const targets = { reference: `${hello.url}/`, health: `${svc.url}/health`, apiHealth: `${svc.url}/api/health` };
    for (const url of Object.values(targets)) await loadOnce(autocannon, url, WARMUP_SECONDS, CONNECTIONS);
    const rates = { reference: [], health: [], apiHealth: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [key, url] of Object.entries(targets)) {
        const result = await loadOnce(autocannon, url, LOAD_SECONDS, CONNECTIONS);
        if (result.errors || result.non2xx) throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
        rates[key].push(result.requests.average);
      }
    }
    const ref = median(rates.reference);
    const row = (path, values) => ({
      name: `GET ${path} throughput ÷ raw node:http`,
      value: Math.round(median(values)),
      unit: 'req/s',
      reference: Math.round(ref),
      ratio: round(median(values) / ref),
      target: '≥ 0.85',
    });
    return [row('/health', rates.health), row('/api/health', rates.apiHealth)];
  } finally {
    await stopServer(hello);
    await stopServer(svc);
  }
}

function wallMs(command, commandArgs) {
  const t0 = performance.now();
  const result = spawnSync(command, commandArgs, { stdio: 'ignore', timeout: 15_000, env: { ...process.env, NO_COLOR: '1' } });
  const ms = performance.now() - t0;
  if (result.status !== 0) throw new Error(`${commandArgs.join(' ')} exited ${result.status ?? result.signal}`);
  return ms;
}

/** Median wall time of `svc --version` and of bare `node -e 0`, spawned alternately. */
function measureStartupReference() {
  const node = [];
  const version = [];
  wallMs(process.execPath, ['-e', '0']);
  wallMs(process.execPath, [SVC_BIN, '--version']);
  for (let i = 0; i < SPAWN_REPS; i++) {
    node.push(wallMs(process.execPath, ['-e', '0']));
    version.push(wallMs(process.execPath, [SVC_BIN, '--version']));
  }
  return { nodeMs: median(node), versionMs: median(version) };
}

// ---- the table ---------------------------------------------------------------------------------

/** PASS / MISS against a target string ('≥ 0.85', '<= 4', '100%', '0'), or '' when there is none. */
function judge(row) {
  if (row.target === undefined || row.target === null || row.target === '') return '';
  const subject = typeof row.ratio === 'number' && Number.isFinite(row.ratio) ? row.ratio : row.value;
  if (typeof subject !== 'number' || !Number.isFinite(subject)) return 'MISS';
  const match = /^\s*(≥|>=|>|≤|<=|<|=)?\s*(-?[\d.]+)\s*%?\s*$/.exec(String(row.target));
  if (!match) return '?';
  const limit = Number(match[2]);
  switch (match[1]) {
    case '≥':
    case '>=':
      return subject >= limit ? 'PASS' : 'MISS';
    case '>':
      return subject > limit ? 'PASS' : 'MISS';
    case '≤':
    case '<=':
      return subject <= limit ? 'PASS' : 'MISS';
    case '<':
      return subject < limit ? 'PASS' : 'MISS';
    default:
      return subject === limit ? 'PASS' : 'MISS';
  }
}

function printTable(rows) {
  const header = ['metric', 'value', 'unit', 'reference', 'ratio', 'target', 'result'];
  const cells = rows.map((row) =>
    [row.name, row.value ?? '', row.unit ?? '', row.reference ?? '', row.ratio ?? '', row.target ?? '', row.error ? 'ERROR' : judge(row)].map(String),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const numeric = new Set([1, 3, 4]);
  const line = (values) =>
    values
      .map((v, i) => (numeric.has(i) ? v.padStart(widths[i]) : v.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const c of cells) console.log(line(c));
  for (const row of rows.filter((r) => r.error)) console.log(`ERROR ${row.name}: ${row.error}`);
}

/** Runs a measurement; a failure becomes an ERROR row instead of ending the run. */
async function attempt(name, work) {
  try {
    const result = await work();
    return Array.isArray(result) ? result : [result];
  } catch (error) {
    process.stderr.write(`bench: ${name}: ${error.message}\n`);
    return [{ name, error: error.message }];
  }
}

async function moduleRows(file, exportName) {
  const url = new URL(`./${file}`, import.meta.url);
  if (!existsSync(url)) return [];
  process.stderr.write(`bench: ${file}…\n`);
  return attempt(`${file} ${exportName}()`, async () => {
    const module = await import(url.href);
    if (typeof module[exportName] !== 'function') throw new Error(`${file} does not export ${exportName}()`);
    return withTimeout(Promise.resolve(module[exportName]({})), MODULE_TIMEOUT_MS, `${file} ${exportName}()`);
  });
}

async function main() {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) {
    process.stderr.write('bench: dist/ is missing; run `npm run bench` (it builds first).\n');
    process.exit(1);
  }
  const started = performance.now();
  console.log(`svc bench — node ${process.version}, ${cpus().length} CPU(s) ${cpus()[0]?.model ?? ''}, ${new Date().toISOString()}`);
  const rows = [];
  process.stderr.write('bench: throughput…\n');
  rows.push(...(await attempt('throughput', measureThroughput)));
  process.stderr.write('bench: start-up…\n');
  rows.push(
    ...(await attempt('svc --version', () => {
      const measured = measureStartupReference();
      return {
        name: 'svc --version wall ÷ node -e 0',
        value: round(measured.versionMs, 1),
        unit: 'ms',
        reference: round(measured.nodeMs, 1),
        ratio: round(measured.versionMs / measured.nodeMs),
        target: '≤ 1.6',
      };
    })),
  );
  if (!args.has('--no-modules')) {
    rows.push(...(await moduleRows('footprint.mjs', 'benchFootprint')));
    rows.push(...(await moduleRows('workflows.mjs', 'benchWorkflows')));
    rows.push(...(await moduleRows('engine.mjs', 'benchEngine')));
    rows.push(...(await moduleRows('conversations.mjs', 'benchConversations')));
    rows.push(...(await moduleRows('webhooks.mjs', 'benchWebhooks')));
    rows.push(...(await moduleRows('benchmarks.mjs', 'benchBenchmarks')));
    rows.push(...(await moduleRows('streams.mjs', 'benchStreams')));
    rows.push(...(await moduleRows('postgres.mjs', 'benchPostgres')));
    rows.push(...(await moduleRows('sandbox.mjs', 'benchSandbox')));
    rows.push(...(await moduleRows('memory.mjs', 'benchMemory')));
    rows.push(...(await moduleRows('setup-cache.mjs', 'benchSetupCache')));
    rows.push(...(await moduleRows('tracing.mjs', 'benchTracing')));
  }
  console.log('');
  printTable(rows);
  const judged = rows.map((row) => (row.error ? 'ERROR' : judge(row))).filter(Boolean);
  const count = (word) => judged.filter((j) => j === word).length;
  console.log(
    `\n${count('PASS')} PASS, ${count('MISS')} MISS${count('ERROR') ? `, ${count('ERROR')} ERROR` : ''} — ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  if (args.has('--json')) console.log(JSON.stringify(rows, null, 2));
}

try {
  await main();
} catch (error) {
  process.stderr.write(`bench: ${error.stack ?? error}\n`);
  process.exitCode = 1;
}
// Modules may leave servers or timers behind; the run is over, so is the process.
process.exit();
