// What tracing costs at start-up (issue 33, "one trace per run"; docs/decisions.md, "Traces").
//
//   tracing off   the OpenTelemetry files `svc serve` (and `svc runs list`, which opens the runtime
//                 without a server) load before their first answer, with no OTLP endpoint set: the
//                 start-up tracing adds when it is off is the time to load them, so 0 files is 0 ms.
//                 Counted, not timed: the source maps of the bundle chunks the process imported name
//                 every file inside them (as test/cli/serve-footprint.test.ts reads them).
//   tracing on    spawn → first GET /api/health 200 with an endpoint set ÷ the same without: what
//                 loading the SDK costs a server that traces. No target: it is the price of asking.
//
// `node bench/tracing.mjs` (after `npm run build`) prints the rows alone; bench/run.mjs adds them to
// its table (export `benchTracing()`).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { median } from './measure.mjs';
import { round, startServerProcess, stopServer, SVC_BIN, tempDir, withTimeout } from './processes.mjs';

const ROUNDS = 3;
const TRACER = fileURLToPath(new URL('../test/fixtures/trace-imports.mjs', import.meta.url));
/** Tracing off whatever the machine's environment says. */
const OFF = { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' };
/** Nothing listens there; nothing is sent at start-up either. */
const ON = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' };

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The OpenTelemetry source files inside the bundle chunks a traced process reported importing. */
function openTelemetryFiles(stderr) {
  const chunks = stderr
    .split('\n')
    .filter((line) => line.startsWith('svc-trace-import '))
    .map((line) => line.slice('svc-trace-import '.length))
    .filter((url) => /\/dist\/(runtime\.js|chunks\/[^/]+\.js)$/.test(url));
  if (chunks.length === 0) throw new Error('the process loaded no bundle chunk: nothing was looked at');
  const sources = chunks.flatMap((url) => JSON.parse(readFileSync(fileURLToPath(`${url}.map`), 'utf8')).sources);
  return sources.filter((source) => /node_modules\/@opentelemetry\/|src\/tracing\/otel-/.test(source)).length;
}

async function firstHealth(url, deadlineMs = 15_000) {
  const deadline = performance.now() + deadlineMs;
  while (performance.now() < deadline) {
    const status = await fetch(`${url}/api/health`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    await sleep(2);
  }
  throw new Error('/api/health never answered 200');
}

/** `svc serve` in a fresh home, traced; resolves with the OpenTelemetry files it loaded up to its first answer. */
async function serveFiles(env) {
  const home = tempDir('svc-bench-trace-');
  const server = await startServerProcess(['--import', TRACER, SVC_BIN, 'serve'], {
    env: { PORT: '0', SVC_HOME: home, SVC_LOG_LEVEL: 'warn', ...env },
    cwd: home,
  });
  await firstHealth(server.url);
  await stopServer(server);
  return openTelemetryFiles(server.stderr());
}

/** `svc runs list` without a server (the runtime opened in the CLI's own process), traced. */
async function offlineFiles(env) {
  const home = tempDir('svc-bench-trace-');
  const child = spawn(process.execPath, ['--import', TRACER, SVC_BIN, 'runs', 'list'], {
    env: { ...process.env, PORT: '9', SVC_URL: '', SVC_HOME: home, ...env },
    cwd: home,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await withTimeout(new Promise((resolve) => child.once('exit', resolve)), 20_000, 'svc runs list');
  if (code !== 0)
    throw new Error(
      `svc runs list exited ${code}: ${stderr
        .split('\n')
        .filter((l) => !l.startsWith('svc-trace-'))
        .join('\n')}`,
    );
  return openTelemetryFiles(stderr);
}

async function startToHealth(env) {
  const home = tempDir('svc-bench-trace-');
  const server = await startServerProcess([SVC_BIN, 'serve'], { env: { PORT: '0', SVC_HOME: home, SVC_LOG_LEVEL: 'warn', ...env }, cwd: home });
  try {
    await firstHealth(server.url);
    return performance.now() - server.startedAt;
  } finally {
    await stopServer(server);
  }
}

export async function benchTracing() {
  const rows = [
    {
      name: 'tracing off: OpenTelemetry files svc serve loads before its first answer (start-up added: 0)',
      value: await serveFiles(OFF),
      unit: 'files',
      target: '0',
    },
    { name: 'tracing off: OpenTelemetry files svc runs list (no server) loads', value: await offlineFiles(OFF), unit: 'files', target: '0' },
  ];
  // The positive control: the same count sees the SDK when it is asked for.
  const loaded = await serveFiles(ON);
  if (loaded === 0) throw new Error('with an OTLP endpoint set, svc serve loaded no OpenTelemetry file: the count above would see nothing either');
  const off = [];
  const on = [];
  for (let i = 0; i < ROUNDS; i++) {
    off.push(await startToHealth(OFF));
    on.push(await startToHealth(ON));
  }
  rows.push({
    name: `tracing on: svc serve start → first GET /api/health 200 (${loaded} OpenTelemetry files) ÷ tracing off`,
    value: round(median(on), 1),
    unit: 'ms',
    reference: round(median(off), 1),
    ratio: round(median(on) / median(off)),
  });
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const row of await benchTracing()) console.log(JSON.stringify(row));
  process.exit();
}
