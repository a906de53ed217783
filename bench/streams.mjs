// SSE clients that stop reading (issue 19 §3), run by `npm run bench` through bench/run.mjs on the
// built code. 500 clients connect to the dashboard stream of `svc serve` (a child process, so its
// RSS is the server's alone), read until the stream has opened, and never read again, while 20
// runs stream ~2 MiB of events each. Before the byte budget the server went from 75 MB to 3.3 GB
// in six runs and stayed there after the clients left. Rows: the peak RSS with no client (the
// reference) and with the 500, the RSS once they have gone ÷ the same runs' with none, and how
// many clients the server cut (`stream.slow_client_closed`).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServerProcess } from './processes.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SVC_BIN = join(ROOT, 'bin', 'svc.mjs');
const CLIENTS = 500;
const RUNS = 20;
const NODES = 16;
/** What the clients leave behind settles within this (GC, freed pages) before the last reading. */
const SETTLE_MS = 5000;

// 16 nodes × (64 KiB of node_output + the same as node_completed's output) ≈ 2 MiB of events a run.
const WORKFLOW = [
  'name: bulky',
  'description: prints 64 KiB from each of its nodes',
  'nodes:',
  ...Array.from({ length: NODES }, (_, i) => [`  - id: n${i}`, `    bash: "head -c 65536 /dev/zero | tr '\\\\0' x"`]).flat(),
  '',
].join('\n');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value, digits = 1) => Number(value.toFixed(digits));

/** `svc serve` in `project` on its own port and home. */
const startSvc = (project, home) => startServerProcess([SVC_BIN, 'serve'], { cwd: project, env: { PORT: '0', SVC_HOME: home, SVC_LOG_LEVEL: 'warn' } });

function rssMiB(pid) {
  const kib = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  if (!Number.isFinite(kib)) throw new Error(`no VmRSS for pid ${pid}`);
  return kib / 1024;
}

/**
 * A raw socket that asks for the dashboard stream, reads into one 1 KiB buffer until the stream
 * has opened, then stops reading for good (the onread callback's `false` pauses it).
 */
function openStalledClient(url) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const buffer = Buffer.alloc(1024);
    let head = '';
    const socket = connect({
      host: hostname,
      port: Number(port),
      onread: {
        buffer,
        callback: (bytes) => {
          head += buffer.toString('latin1', 0, bytes);
          if (!head.includes(': connected')) return true;
          socket.off('error', reject);
          socket.on('error', () => {});
          resolve(socket);
          return false;
        },
      },
    });
    socket.once('error', reject);
    socket.once('connect', () => socket.write(`GET /api/stream/__dashboard__ HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n\r\n`));
  });
}

async function json(url, init) {
  const response = await fetch(url, init);
  const body = await response.json();
  if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${url} answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

/** Starts one run and waits for it through the small dashboard listing (not the run's own 2 MiB of events). */
async function runOnce(url, project) {
  const { runId } = await json(`${url}/api/workflows/bulky/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: '', cwd: project }),
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { runs } = await json(`${url}/api/dashboard/runs?workflow=bulky&limit=5`);
    const status = runs.find((run) => run.id === runId)?.status;
    if (status === 'completed') return;
    if (status === 'failed' || status === 'cancelled') throw new Error(`run ${runId} ${status}`);
    await sleep(200);
  }
  throw new Error(`run ${runId} did not finish within 60 s`);
}

function slowClientsCut(home) {
  const log = join(home, 'logs', 'svc.log');
  if (!existsSync(log)) return 0;
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"event":"stream.slow_client_closed"')).length;
}

/** One server: a warm-up run, `clients` stalled clients, the runs, the clients leave; RSS throughout. */
async function measure(clients) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-streams-'));
  const project = join(dir, 'project');
  const home = join(dir, 'home');
  mkdirSync(join(project, '.svc', 'workflows'), { recursive: true });
  writeFileSync(join(project, '.svc', 'workflows', 'bulky.yaml'), WORKFLOW);
  const svc = await startSvc(project, home);
  const sockets = [];
  try {
    // A run first: the idle figure is a server that has loaded what a run needs.
    await runOnce(svc.url, project);
    await sleep(1000);
    const idle = rssMiB(svc.child.pid);
    for (let i = 0; i < clients; i++) sockets.push(await openStalledClient(svc.url));
    let peak = rssMiB(svc.child.pid);
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(svc.child.pid))), 100);
    try {
      for (let i = 0; i < RUNS; i++) await runOnce(svc.url, project);
    } finally {
      clearInterval(sampler);
    }
    const cut = slowClientsCut(home);
    for (const socket of sockets.splice(0)) socket.destroy();
    await sleep(SETTLE_MS);
    return { idle, peak, after: rssMiB(svc.child.pid), cut };
  } finally {
    for (const socket of sockets) socket.destroy();
    if (svc.child.exitCode === null) svc.child.kill('SIGKILL');
    await sleep(300);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The same runs on a server with no client are the reference: the runs alone grow an idle server
 * (~90 MiB) by tens of MiB, and what matters here is what the clients add and leave behind.
 */
export async function benchStreams() {
  const reference = await measure(0);
  const stalled = await measure(CLIENTS);
  const runs = `${RUNS} runs of ~2 MiB`;
  return [
    { name: `server RSS peak, ${runs}, no SSE client (reference)`, value: round(reference.peak), unit: 'MiB' },
    { name: `server RSS peak, ${runs}, ${CLIENTS} never-reading SSE clients`, value: round(stalled.peak), unit: 'MiB', target: '≤ 300' },
    {
      name: `server RSS once the ${CLIENTS} clients left ÷ the same runs with none`,
      value: round(stalled.after),
      unit: 'MiB',
      reference: round(reference.after),
      ratio: round(stalled.after / reference.after, 2),
      target: '≤ 1.25',
    },
    { name: `never-reading SSE clients cut (stream.slow_client_closed), of ${CLIENTS}`, value: stalled.cut, unit: 'clients', target: String(CLIENTS) },
  ];
}
