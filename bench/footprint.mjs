// The footprint figures (issue 22), each against a reference measured in the same run, side by
// side, the median of three: `svc serve` (the built binary, a child process on a temporary
// SVC_HOME) against what Node itself needs for the same job.
//
//   idle RSS             VmRSS of a server that answered a little load, then sat idle for 2 s
//   start-up             spawn → first 200 from GET /api/health ÷ `node -e 0` wall time
//   chain                a 20-node chain of `bash: "true"` started over the API, until it settles
//                        ÷ 20 sequential raw spawn('bash', ['-c', 'true']); each round the median
//                        of 5 of each, interleaved
//   /api/health req/s    ÷ a raw node:http server answering the same kind of JSON (autocannon)
//
// The rounds interleave measurement and reference, so drift on a shared machine hits both alike.
// `node bench/footprint.mjs` (after `npm run build`) prints the rows alone; bench/run.mjs adds them
// to its table (export `benchFootprint()`). `SVC_BENCH_SVC=/other/checkout/bin/svc.mjs` measures
// another build (A/B).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { median, watchRuns } from './measure.mjs';
import { cleanup, loadOnce, round, startHello, startSvc, stopServer, tempDir, withTimeout } from './processes.mjs';

const ROUNDS = 3;
// A chain's time has a long tail on a shared 2-core machine (a scheduling hiccup, a GC, another
// tenant): each round's chain and raw figures are the median of this many runs, then the three
// rounds' median is taken as for every figure.
const CHAIN_SAMPLES = 5;
const CHAIN_NODES = 20;
const LOAD_SECONDS = 3;
const WARMUP_SECONDS = 2;
const CONNECTIONS = 20;
const SETTLE_MS = 2000;
const RUN_TIMEOUT_MS = 60_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A project directory holding the 20-node chain. */
function chainProject() {
  const dir = tempDir('svc-foot-project-');
  const lines = ['name: foot-chain', 'description: footprint bench chain', 'nodes:'];
  for (let i = 0; i < CHAIN_NODES; i++) {
    lines.push(`  - id: n${i}`, '    bash: "true"');
    if (i > 0) lines.push(`    depends_on: [n${i - 1}]`);
  }
  mkdirSync(join(dir, '.svc', 'workflows'), { recursive: true });
  writeFileSync(join(dir, '.svc', 'workflows', 'foot-chain.yaml'), `${lines.join('\n')}\n`);
  return dir;
}

/** One request; resolves with the status and body (status 0 when the connection failed). */
function send(url, { method = 'GET', body } = {}) {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
    const req = request(url, { method, agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.setTimeout(5000, () => req.destroy());
    req.on('error', () => resolve({ status: 0, text: '' }));
    req.end(payload);
  });
}

function vmRssMiB(pid) {
  const kib = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  if (!Number.isFinite(kib)) throw new Error('no VmRSS in /proc/<pid>/status');
  return kib / 1024;
}

// ---- the figures -------------------------------------------------------------------------------

/** (a) VmRSS after 50 health checks and a few API reads, then 2 s idle. */
async function idleRss() {
  const server = await startSvc('svc-foot-');
  try {
    for (let i = 0; i < 50; i++) await send(`${server.url}/api/health`);
    for (const path of ['/health', '/api/config', '/api/workflows', '/api/workflows/runs', '/api/workspaces', '/api/conversations'])
      await send(`${server.url}${path}`);
    await sleep(SETTLE_MS);
    return vmRssMiB(server.child.pid);
  } finally {
    await stopServer(server);
  }
}

/** (b) Spawn → the first 200 from GET /api/health, polled every 2 ms. */
async function startToHealth() {
  const server = await startSvc('svc-foot-');
  try {
    const deadline = performance.now() + 15_000;
    while (performance.now() < deadline) {
      if ((await send(`${server.url}/api/health`)).status === 200) return performance.now() - server.startedAt;
      await sleep(2);
    }
    throw new Error('/api/health never answered 200');
  } finally {
    await stopServer(server);
  }
}

function nodeBareMs() {
  const t0 = performance.now();
  const result = spawnSync(process.execPath, ['-e', '0'], { stdio: 'ignore', timeout: 15_000 });
  if (result.status !== 0) throw new Error(`node -e 0 exited ${result.status ?? result.signal}`);
  return performance.now() - t0;
}

/** 20 sequential raw spawns of `bash -c true`. */
async function rawSpawns(n) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    await new Promise((resolve, reject) => {
      const child = spawn('bash', ['-c', 'true']);
      child.once('error', reject);
      child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`bash exited ${code}`))));
    });
  }
  return performance.now() - t0;
}

/** (c) A 20-node chain over the API, from the POST until the run settles. */
async function chainRun(server, watcher, cwd) {
  const t0 = performance.now();
  const started = await send(`${server.url}/api/workflows/foot-chain/run`, { method: 'POST', body: { message: 'bench', cwd } });
  if (started.status !== 202) throw new Error(`starting the chain answered ${started.status}: ${started.text}`);
  const { runId } = JSON.parse(started.text);
  const outcome = await withTimeout(watcher.until(runId), RUN_TIMEOUT_MS, 'the chain run');
  const ms = performance.now() - t0;
  if (outcome !== 'run_completed') throw new Error(`the chain ended ${outcome}`);
  return ms;
}

// ---- the rows ----------------------------------------------------------------------------------

export async function benchFootprint() {
  try {
    const rows = [];
    const rss = [];
    const start = [];
    const bare = [];
    for (let i = 0; i < ROUNDS; i++) {
      bare.push(nodeBareMs());
      start.push(await startToHealth());
      rss.push(await idleRss());
    }
    rows.push({ name: 'footprint: idle svc serve RSS after a little load', value: round(median(rss), 1), unit: 'MiB', target: '≤ 80' });
    rows.push({
      name: 'footprint: svc serve start → first GET /api/health 200 ÷ node -e 0',
      value: round(median(start), 1),
      unit: 'ms',
      reference: round(median(bare), 1),
      ratio: round(median(start) / median(bare)),
      target: '≤ 4',
    });

    const cwd = chainProject();
    const server = await startSvc('svc-foot-');
    const watcher = watchRuns(server.url);
    try {
      await withTimeout(watcher.opened, 10_000, 'the dashboard stream');
      // The first run pays for discovery and the JIT; it is not measured.
      await chainRun(server, watcher, cwd);
      await rawSpawns(5);
      const chain = [];
      const spawns = [];
      for (let i = 0; i < ROUNDS; i++) {
        const roundSpawns = [];
        const roundChain = [];
        for (let k = 0; k < CHAIN_SAMPLES; k++) {
          roundSpawns.push(await rawSpawns(CHAIN_NODES));
          roundChain.push(await chainRun(server, watcher, cwd));
        }
        spawns.push(median(roundSpawns));
        chain.push(median(roundChain));
      }
      rows.push({
        name: `footprint: ${CHAIN_NODES}-node bash chain over the API ÷ ${CHAIN_NODES} sequential raw bash spawns`,
        value: round(median(chain), 1),
        unit: 'ms',
        reference: round(median(spawns), 1),
        ratio: round(median(chain) / median(spawns)),
        target: '≤ 1.8',
      });

      const { default: autocannon } = await import('autocannon');
      const hello = await startHello();
      try {
        const targets = { svc: `${server.url}/api/health`, reference: `${hello.url}/` };
        for (const url of Object.values(targets)) await loadOnce(autocannon, url, WARMUP_SECONDS, CONNECTIONS);
        const rates = { svc: [], reference: [] };
        for (let i = 0; i < ROUNDS; i++) {
          for (const [key, url] of Object.entries(targets)) {
            const result = await loadOnce(autocannon, url, LOAD_SECONDS, CONNECTIONS);
            if (result.errors || result.non2xx) throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
            rates[key].push(result.requests.average);
          }
        }
        rows.push({
          name: 'footprint: GET /api/health req/s ÷ raw node:http',
          value: Math.round(median(rates.svc)),
          unit: 'req/s',
          reference: Math.round(median(rates.reference)),
          ratio: round(median(rates.svc) / median(rates.reference)),
          target: '≥ 0.75',
        });
      } finally {
        await stopServer(hello);
      }
    } finally {
      watcher.close();
      await stopServer(server);
    }
    return rows;
  } finally {
    cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await benchFootprint();
  for (const row of rows) {
    const subject = row.ratio ?? row.value;
    const [, op, limit] = /^(≤|≥)\s*([\d.]+)/.exec(row.target);
    const pass = op === '≤' ? subject <= Number(limit) : subject >= Number(limit);
    const ref = row.reference === undefined ? '' : ` (reference ${row.reference} ${row.unit}, ratio ${row.ratio})`;
    console.log(`${pass ? 'PASS' : 'FAIL'}  ${row.name}: ${row.value} ${row.unit}${ref}, target ${row.target}`);
  }
  process.exit();
}
