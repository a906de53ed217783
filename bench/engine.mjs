// Run-engine benchmarks (issue 4, "bench"): each number is set against a reference measured in the
// same process and run, so the ratios mean the same on a laptop and on a CI box. Nothing here gates
// CI; `target` only says what we aim for.
//
// The engine runs the realistic way: the real server (store, routes, listhen) in-process on a
// temporary SVC_HOME and port 0, runs started with POST /api/workflows/<name>/run on generated
// project workflows, completion awaited through the engine, per-node times read from the record.
import { spawn } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** The build under test; `SVC_BENCH_DIST=/other/checkout/dist` compares another build (A/B). */
const DIST = process.env.SVC_BENCH_DIST ? pathToFileURL(`${resolve(process.env.SVC_BENCH_DIST)}/`) : new URL('../dist/', import.meta.url);

/** Repetitions of the small measurements; the median is reported. */
const REPS = 5;
const CHAIN_LONG = 1000;
const WINDOW = 100;
const SSE_CLIENTS = 100;
const SSE_EVENTS = 1000;
/** A run that takes longer is reported as an error (the 1,000-node chain gets more). */
const RUN_TIMEOUT_MS = 60_000;
const LONG_RUN_TIMEOUT_MS = 150_000;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const percentile = (values, p) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};
const round = (value, digits = 2) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : value);

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`bench: ${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// ------------------------------------------------------------------------------------------------
// References: what Node itself needs for the same processes
// ------------------------------------------------------------------------------------------------

/** `sh -c true` (the reference), or `bash -c true` spawned as the engine spawns nodes (the floor). */
function spawnTrue(shell = 'sh') {
  return new Promise((resolve, reject) => {
    const child =
      shell === 'sh'
        ? spawn('sh', ['-c', 'true'])
        : spawn('bash', ['-c', 'true'], { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, RUN_ID: 'bench' } });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`sh exited with ${code}`))));
  });
}

async function sequentialSpawns(n, shell = 'sh') {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await withTimeout(spawnTrue(shell), 10_000, `${shell} -c true`);
  return performance.now() - t0;
}

async function parallelSpawns(n) {
  const t0 = performance.now();
  await withTimeout(Promise.all(Array.from({ length: n }, () => spawnTrue())), 10_000, 'parallel sh -c true');
  return performance.now() - t0;
}

// ------------------------------------------------------------------------------------------------
// Workflows
// ------------------------------------------------------------------------------------------------

const nodeId = (i) => `n${String(i).padStart(4, '0')}`;

function chainYaml(name, n) {
  const lines = [`name: ${name}`, `description: ${name} (bench)`, 'nodes:'];
  for (let i = 0; i < n; i++) {
    lines.push(`  - id: ${nodeId(i)}`, '    bash: "true"');
    if (i > 0) lines.push(`    depends_on: [${nodeId(i - 1)}]`);
  }
  return `${lines.join('\n')}\n`;
}

function parallelYaml(name, n) {
  const lines = [`name: ${name}`, `description: ${name} (bench)`, 'nodes:'];
  for (let i = 0; i < n; i++) lines.push(`  - id: ${nodeId(i)}`, '    bash: "true"');
  return `${lines.join('\n')}\n`;
}

/**
 * A run of exactly `events` events whatever the load: every `echo` node makes node_started,
 * node_output and node_completed (one short line is one chunk), a `true` node the first and last,
 * and the run adds run_created, run_started and run_completed. (A single node streaming lines would
 * not do: under load Node reads several lines per chunk, and the count would drift.)
 */
function eventsYaml(name, events) {
  const body = events - 3;
  const echoes = Math.floor(body / 3) - ((body % 3) % 2);
  const trues = (body - 3 * echoes) / 2;
  const lines = [`name: ${name}`, `description: ${name} (bench)`, 'nodes:'];
  for (let i = 0; i < echoes; i++) lines.push(`  - id: e${i}`, `    bash: echo "event from e${i}"`);
  for (let i = 0; i < trues; i++) lines.push(`  - id: t${i}`, '    bash: "true"');
  return `${lines.join('\n')}\n`;
}

// ------------------------------------------------------------------------------------------------
// The server under test
// ------------------------------------------------------------------------------------------------

async function openBench() {
  const { startServer } = await import(new URL('server/listen.js', DIST));
  const { loadSettings } = await import(new URL('shared/settings.js', DIST));
  const root = await mkdtemp(join(tmpdir(), 'svc-bench-'));
  const home = join(root, 'home');
  await mkdir(home, { recursive: true });
  // The long chain sits in a project of its own: discovery validates every workflow of a cwd on
  // its first run there, and parsing 1,000 nodes would otherwise land in the small runs' cold cost.
  const projects = {
    'bench-chain-20': ['small', chainYaml('bench-chain-20', 20)],
    'bench-parallel-20': ['small', parallelYaml('bench-parallel-20', 20)],
    'bench-events': ['small', eventsYaml('bench-events', SSE_EVENTS)],
    [`bench-chain-${CHAIN_LONG}`]: ['long', chainYaml(`bench-chain-${CHAIN_LONG}`, CHAIN_LONG)],
  };
  const cwdOf = (workflow) => join(root, projects[workflow][0]);
  for (const [name, [project, text]] of Object.entries(projects)) {
    await mkdir(join(root, project, '.svc', 'workflows'), { recursive: true });
    await writeFile(join(root, project, '.svc', 'workflows', `${name}.yaml`), text);
  }

  const settings = loadSettings({ ...process.env, SVC_HOME: home, PORT: '0', SVC_LOG_LEVEL: 'warn', SVC_MAX_CONCURRENT_RUNS: '4' });
  const server = await startServer({ settings, cwd: cwdOf('bench-chain-20') });
  const engine = server.ctx.engine;

  /** Starts a run over HTTP and waits for it to settle: wall ms from the POST to settled, and the record. */
  const run = async (workflow, { message = 'bench', timeoutMs = RUN_TIMEOUT_MS } = {}) => {
    const t0 = performance.now();
    const response = await withTimeout(
      fetch(`${server.url}/api/workflows/${workflow}/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message, cwd: cwdOf(workflow) }),
      }),
      10_000,
      `POST /api/workflows/${workflow}/run`,
    );
    const body = await response.json();
    if (response.status !== 202) throw new Error(`bench: starting ${workflow} answered ${response.status}: ${JSON.stringify(body)}`);
    const record = await withTimeout(engine.waitUntilSettled(body.runId), timeoutMs, `run of ${workflow}`);
    const ms = performance.now() - t0;
    if (record.status !== 'completed') throw new Error(`bench: run of ${workflow} ended ${record.status}: ${record.error}`);
    return { ms, record };
  };

  const close = async () => {
    await withTimeout(server.close(), 15_000, 'server close').catch(() => {});
    await rm(root, { recursive: true, force: true });
  };
  return { server, engine, run, close, url: server.url };
}

// ------------------------------------------------------------------------------------------------
// The measurements
// ------------------------------------------------------------------------------------------------

/** Mean ms per node over `ids`: start-to-start (the chain's cycle) and the idle gap between nodes. */
function nodeTimes(record, ids) {
  const at = (iso) => Date.parse(iso);
  const states = ids.map((id) => record.nodes[id]);
  const cycles = [];
  const gaps = [];
  for (let i = 1; i < states.length; i++) {
    cycles.push(at(states[i].startedAt) - at(states[i - 1].startedAt));
    gaps.push(at(states[i].startedAt) - at(states[i - 1].finishedAt));
  }
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return { cycle: mean(cycles), gap: mean(gaps), inside: mean(states.map((s) => at(s.finishedAt) - at(s.startedAt))) };
}

async function measureChainAndParallel(bench, rows) {
  // The first run of a fresh server pays for lazy work (collections, discovery, JIT); reported apart.
  const cold = await bench.run('bench-chain-20');
  await sequentialSpawns(5);

  const chain = [];
  const chainRef = [];
  const bashRef = [];
  const parallel = [];
  const parallelRef = [];
  for (let i = 0; i < REPS; i++) {
    chainRef.push(await sequentialSpawns(20));
    bashRef.push(await sequentialSpawns(20, 'bash'));
    chain.push((await bench.run('bench-chain-20')).ms);
    parallelRef.push(await parallelSpawns(20));
    parallel.push((await bench.run('bench-parallel-20')).ms);
  }
  const chainMs = median(chain);
  const chainRefMs = median(chainRef);
  rows.push({
    name: 'engine: 20-node chain of bash "true" (wall ms)',
    value: round(chainMs, 1),
    unit: 'ms',
    reference: round(chainRefMs, 1),
    ratio: round(chainMs / chainRefMs),
    // Issue 7's target for the per-node overhead (docs/decisions.md, "Engine overhead").
    target: '≤ 1.8',
  });
  // The spec says `bash -c`, in its own process group: bash alone costs more than sh (dash on Debian).
  const bashMs = median(bashRef);
  rows.push({
    name: 'floor: 20 sequential bash -c true spawned as nodes are (wall ms)',
    value: round(bashMs, 1),
    unit: 'ms',
    reference: round(chainRefMs, 1),
    ratio: round(bashMs / chainRefMs),
  });
  rows.push({
    name: 'engine: 20-node chain, first run on a fresh server (wall ms)',
    value: round(cold.ms, 1),
    unit: 'ms',
    reference: round(chainMs, 1),
    ratio: round(cold.ms / chainMs),
  });
  const parallelMs = median(parallel);
  const parallelRefMs = median(parallelRef);
  rows.push({
    name: 'engine: 20 independent bash "true" nodes (wall ms)',
    value: round(parallelMs, 1),
    unit: 'ms',
    reference: round(parallelRefMs, 1),
    ratio: round(parallelMs / parallelRefMs),
    target: '≤ 1.5',
  });
  return { chainPerNodeMs: chainMs / 20 };
}

async function measureLongChain(bench, rows, chainPerNodeMs) {
  const { ms, record } = await bench.run(`bench-chain-${CHAIN_LONG}`, { timeoutMs: LONG_RUN_TIMEOUT_MS });
  const ids = Array.from({ length: CHAIN_LONG }, (_, i) => nodeId(i));
  const first = nodeTimes(record, ids.slice(0, WINDOW));
  const last = nodeTimes(record, ids.slice(-WINDOW));
  rows.push({
    name: `engine: ${CHAIN_LONG}-node chain, ms per node, last ${WINDOW} vs first ${WINDOW}`,
    value: round(last.cycle),
    unit: 'ms/node',
    reference: round(first.cycle),
    ratio: round(last.cycle / first.cycle),
    target: '≤ 1.5',
  });
  // Flat within one run is not enough: a node of a long workflow should cost what it costs in a short one.
  const perNode = ms / CHAIN_LONG;
  if (chainPerNodeMs !== undefined)
    rows.push({
      name: `engine: ${CHAIN_LONG}-node chain ms/node vs 20-node chain ms/node`,
      value: round(perNode),
      unit: 'ms/node',
      reference: round(chainPerNodeMs),
      ratio: round(perNode / chainPerNodeMs),
      target: '≤ 1.5',
    });
  return { first, last, perNode, totalMs: ms };
}

/** RunStore.emit in a loop on a real run: awaited one by one, and pipelined as node_output does. */
async function measureEventRate(bench, rows) {
  const { record } = await bench.run('bench-chain-20');
  const runs = bench.engine.runs;
  const fields = { nodeId: 'n0000', stream: 'stdout', text: 'a line of output from a node\n' };

  const sequentialN = 2000;
  let t0 = performance.now();
  for (let i = 0; i < sequentialN; i++) await runs.emit(record, 'node_output', fields);
  const sequentialRate = sequentialN / ((performance.now() - t0) / 1000);

  const pipelinedN = 10_000;
  t0 = performance.now();
  await withTimeout(Promise.all(Array.from({ length: pipelinedN }, () => runs.emit(record, 'node_output', fields))), 60_000, 'pipelined emits');
  const pipelinedRate = pipelinedN / ((performance.now() - t0) / 1000);

  // Reference: the storage floor of this design, one fs.appendFile of an event-sized line per event.
  const probe = join(runs.artifactsDir(record.id), 'bench-append.jsonl');
  const line = `${JSON.stringify({ type: 'node_output', at: new Date().toISOString(), runId: record.id, seq: 1, pos: 1, conversationId: null, platformId: record.platformId, workflow: record.workflow, ...fields })}\n`;
  t0 = performance.now();
  for (let i = 0; i < sequentialN; i++) await appendFile(probe, line);
  const appendRate = sequentialN / ((performance.now() - t0) / 1000);

  rows.push({
    name: 'events: persisted/s, RunStore.emit awaited one by one',
    value: Math.round(sequentialRate),
    unit: 'events/s',
    reference: Math.round(appendRate),
    ratio: round(appendRate / sequentialRate),
  });
  rows.push({
    name: 'events: persisted/s, RunStore.emit pipelined (as node_output)',
    value: Math.round(pipelinedRate),
    unit: 'events/s',
    reference: Math.round(appendRate),
    ratio: round(appendRate / pipelinedRate),
  });
}

async function measureSse(bench, rows) {
  const worker = new Worker(new URL('./sse-clients.mjs', import.meta.url), {
    workerData: { url: `${bench.url}/api/stream/__dashboard__`, clients: SSE_CLIENTS, openTimeoutMs: 15_000 },
  });
  const messages = [];
  let wake;
  worker.on('message', (message) => {
    messages.push(message);
    wake?.();
  });
  worker.on('error', (error) => {
    messages.push({ type: 'error', message: error.message });
    wake?.();
  });
  const next = (type, ms) =>
    withTimeout(
      (async () => {
        for (;;) {
          const index = messages.findIndex((m) => m.type === type || m.type === 'error');
          if (index >= 0) {
            const [message] = messages.splice(index, 1);
            if (message.type === 'error') throw new Error(`bench: SSE clients: ${message.message}`);
            return message;
          }
          await new Promise((resolve) => (wake = resolve));
        }
      })(),
      ms,
      `SSE clients (${type})`,
    );
  // Where the latency goes: `at` → published on the bus (persisting first) vs → client receipt.
  const publishLatency = new Map();
  const unsubscribe = bench.server.ctx.bus.subscribe((event) => {
    if (typeof event.runId !== 'string') return;
    const list = publishLatency.get(event.runId) ?? [];
    list.push(Date.now() - Date.parse(event.at));
    publishLatency.set(event.runId, list);
  });
  try {
    await next('ready', 20_000);
    const { ms, record } = await bench.run('bench-events');
    const expected = (await bench.engine.runs.readEvents(record.id)).length;
    worker.postMessage({ type: 'collect', runId: record.id, timeoutMs: 15_000 });
    const result = await next('result', 20_000);
    const delivered = result.perClient.reduce((a, b) => a + b, 0);
    const total = expected * SSE_CLIENTS;
    rows.push({
      name: `sse: ${SSE_CLIENTS} clients × ${expected} events of one run (${SSE_EVENTS} expected), delivered`,
      value: round((100 * delivered) / total, 2),
      unit: '%',
      reference: total,
      target: '100%',
    });
    rows.push({ name: 'sse: delivery latency p50 (event at → client receipt)', value: percentile(result.latencies, 50), unit: 'ms' });
    rows.push({ name: 'sse: delivery latency p99', value: percentile(result.latencies, 99), unit: 'ms' });
    const persisted = publishLatency.get(record.id) ?? [];
    rows.push({ name: 'sse: of which event at → published (persist queue) p50', value: percentile(persisted, 50), unit: 'ms' });
    rows.push({ name: 'sse: of which event at → published (persist queue) p99', value: percentile(persisted, 99), unit: 'ms' });
    rows.push({ name: `sse: that run's wall ms with ${SSE_CLIENTS} clients attached`, value: round(ms, 1), unit: 'ms' });
    if (result.errors) rows.push({ name: 'sse: client errors/reconnects', value: result.errors, unit: 'count', target: '0' });
  } finally {
    unsubscribe();
    worker.postMessage({ type: 'close' });
    await withTimeout(new Promise((resolve) => worker.once('exit', resolve)), 5_000, 'SSE worker exit').catch(() => worker.terminate());
  }
}

/** The sections, in the order they run; `benchEngine({ only: ['sse'] })` runs a subset. */
export const SECTIONS = ['spawn', 'long-chain', 'events', 'sse'];

/**
 * Rows `{ name, value, unit, reference?, ratio?, target? }` for bench/run.mjs's table.
 * Options: `only` (section names), `details` (attach per-window node timings as `rows.details`).
 */
export async function benchEngine(options = {}) {
  const wanted = (section) => !options.only || options.only.includes(section);
  const rows = [];
  const details = {};
  const bench = await openBench();
  // A failing section becomes an error row (bench/run.mjs prints it as ERROR); the others still run.
  const section = async (name, work) => {
    if (!wanted(name)) return;
    try {
      await work();
    } catch (error) {
      rows.push({ name: `engine bench: ${name}`, error: error.message });
    }
  };
  try {
    let chainPerNodeMs;
    await section('spawn', async () => ({ chainPerNodeMs } = await measureChainAndParallel(bench, rows)));
    await section('long-chain', async () => (details.longChain = await measureLongChain(bench, rows, chainPerNodeMs)));
    await section('events', () => measureEventRate(bench, rows));
    await section('sse', () => measureSse(bench, rows));
  } finally {
    await bench.close();
  }
  if (options.details) Object.defineProperty(rows, 'details', { value: details, enumerable: false });
  return rows;
}
