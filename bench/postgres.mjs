// The PostgreSQL store (issue 13), run by `npm run bench` through bench/run.mjs on the built code,
// against a throwaway PostgreSQL cluster made here (Debian's binaries, as the tests use):
// - run throughput: 200 runs of a short bash workflow through one `svc serve`, then through two
//   on one database (runs sent to the first; the second claims what the first has no slot for);
//   the row is runs/s with two servers, its reference one server's;
// - the benchmark and dashboard endpoints with 10,000 runs in the database against 100 (target
//   ≤ 1.5×, as on the file store: a query's cost follows its `limit`, not the history).
// Each row: { name, value, unit, reference, ratio, target? }.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { latency } from './measure.mjs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startServer } from '../dist/server/listen.js';
import { loadSettings } from '../dist/shared/settings.js';
import { summarizeRun } from '../dist/runs/storage/run-summaries.js';
import { benchRunRecord } from './benchmarks.mjs';

const SVC_BIN = fileURLToPath(new URL('../bin/svc.mjs', import.meta.url));
const RUNS = 200;
const SLOTS = '4';
const round = (n, digits = 2) => Number(n.toFixed(digits));

// ---- a throwaway cluster ------------------------------------------------------------------------

function postgresBin() {
  const root = '/usr/lib/postgresql';
  const major = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))[0]
    : undefined;
  if (!major) throw new Error("PostgreSQL's initdb was not found (Debian: apt-get install postgresql)");
  return join(root, major, 'bin');
}

const isRoot = () => process.getuid?.() === 0;
const asServer = (bin, tool, args) =>
  execFileSync(isRoot() ? 'runuser' : join(bin, tool), isRoot() ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args, { stdio: 'pipe' });

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

async function startCluster() {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-bench-'));
  if (isRoot()) {
    const [, , uid, gid] = execFileSync('getent', ['passwd', 'postgres'], { encoding: 'utf8' }).trim().split(':');
    chownSync(dir, Number(uid), Number(gid));
  }
  const data = join(dir, 'data');
  asServer(bin, 'initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  // Durable settings left as a user's server has them, except the socket dir and the port.
  asServer(bin, 'pg_ctl', [
    '-D',
    data,
    '-l',
    join(dir, 'server.log'),
    '-o',
    `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c max_connections=200`,
    '-w',
    'start',
  ]);
  const url = (name = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${name}`;
  let databases = 0;
  return {
    async createDatabase() {
      const name = `svc_bench_${++databases}`;
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      await client.query(`CREATE DATABASE ${name}`);
      await client.end();
      return url(name);
    },
    stop() {
      const args = ['-D', data, '-m', 'immediate', '-w', 'stop'];
      spawnSync(isRoot() ? 'runuser' : join(bin, 'pg_ctl'), isRoot() ? ['-u', 'postgres', '--', join(bin, 'pg_ctl'), ...args] : args, { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---- throughput, one vs two servers -------------------------------------------------------------

function serve(url, cwd) {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-pg-home-'));
  const child = spawn(process.execPath, [SVC_BIN, 'serve'], {
    cwd,
    env: { ...process.env, SVC_HOME: home, PORT: '0', SVC_LOG_LEVEL: 'error', SVC_DATABASE_URL: url, SVC_MAX_CONCURRENT_RUNS: SLOTS },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('svc serve did not start')), 30_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /listening on (\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1],
          stop: async () => {
            child.kill('SIGTERM');
            await new Promise((done) => child.once('exit', done));
            rmSync(home, { recursive: true, force: true });
          },
        });
      }
    });
    child.once('exit', () => reject(new Error(`svc serve exited: ${out}`)));
  });
}

async function throughput(cluster, project, serverCount) {
  const url = await cluster.createDatabase();
  const servers = [];
  for (let i = 0; i < serverCount; i++) servers.push(await serve(url, project));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < RUNS) {
          next++;
          const answer = await fetch(`${servers[0].url}/api/workflows/short/run`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ message: 'bench', cwd: project }),
          });
          if (answer.status !== 202) throw new Error(`start answered ${answer.status}`);
        }
      }),
    );
    for (;;) {
      const { rows } = await client.query("SELECT count(*)::int AS n FROM runs WHERE status IN ('completed', 'failed')");
      if (rows[0].n >= RUNS) break;
      if (performance.now() - started > 180_000) throw new Error('runs did not finish');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return RUNS / ((performance.now() - started) / 1000);
  } finally {
    await client.end();
    for (const server of servers) await server.stop();
  }
}

// ---- the benchmark endpoint with 10,000 runs ----------------------------------------------------

async function seedDatabase(url, count) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // The schema is the server's: applied by opening it once.
    const settings = loadSettings({
      ...process.env,
      SVC_HOME: mkdtempSync(join(tmpdir(), 'svc-bench-pg-seed-')),
      PORT: '0',
      SVC_LOG_LEVEL: 'error',
      SVC_DATABASE_URL: url,
    });
    const server = await startServer({ settings, cwd: tmpdir() });
    await server.close();
    rmSync(settings.home, { recursive: true, force: true });
    const now = Date.now();
    for (let i = 0; i < count; i += 500) {
      const records = [];
      for (let j = i; j < Math.min(count, i + 500); j++) records.push(benchRunRecord(j, count, now));
      await client.query("INSERT INTO runs (id, record) SELECT r->>'id', r FROM jsonb_array_elements($1::jsonb) AS r", [JSON.stringify(records)]);
      const summaries = records.map(summarizeRun).filter(Boolean);
      await client.query(
        "INSERT INTO run_summaries (run_id, workflow, finished_at, record) SELECT s->>'runId', s->>'workflow', s->>'finishedAt', s FROM jsonb_array_elements($1::jsonb) AS s",
        [JSON.stringify(summaries)],
      );
    }
    // What autovacuum does to a real database in time: statistics, and the visibility map index-only scans need.
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
}

const QUERIES = [
  ['GET /api/runs/benchmark (limit 20)', '/api/runs/benchmark?workflow=build'],
  ['GET /api/runs/benchmark (limit 200)', '/api/runs/benchmark?workflow=build&limit=200'],
  ['GET /api/dashboard/runs (newest 50)', '/api/dashboard/runs'],
  ['GET /api/dashboard/runs (failed, 7d, page of 10)', '/api/dashboard/runs?status=failed&since=7d&limit=10'],
];

async function measureQueries(cluster, count) {
  const url = await cluster.createDatabase();
  await seedDatabase(url, count);
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-pg-q-'));
  const server = await startServer({
    settings: loadSettings({ ...process.env, SVC_HOME: home, PORT: '0', SVC_LOG_LEVEL: 'error', SVC_DATABASE_URL: url }),
    cwd: home,
  });
  try {
    const out = [];
    for (const [, path] of QUERIES) out.push(await latency(server.url, path));
    return out;
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
}

export async function benchPostgres() {
  const cluster = await startCluster();
  const project = mkdtempSync(join(tmpdir(), 'svc-bench-pg-project-'));
  try {
    mkdirSync(join(project, '.svc', 'workflows'), { recursive: true });
    writeFileSync(
      join(project, '.svc', 'workflows', 'short.yaml'),
      'name: short\ndescription: a short bash workflow\nnodes:\n  - id: one\n    bash: echo done\n',
    );
    const one = await throughput(cluster, project, 1);
    const two = await throughput(cluster, project, 2);
    const rows = [
      {
        name: `postgres: run throughput, ${RUNS} runs of a short bash workflow, two servers vs one (SVC_MAX_CONCURRENT_RUNS=${SLOTS} each)`,
        value: round(two, 1),
        unit: 'runs/s',
        reference: round(one, 1),
        ratio: round(two / one),
      },
    ];
    const small = await measureQueries(cluster, 100);
    const large = await measureQueries(cluster, 10_000);
    rows.push(
      ...QUERIES.map(([name], i) => ({
        name: `postgres: ${name}, 10,000 vs 100 runs`,
        value: round(large[i], 3),
        unit: 'ms',
        reference: round(small[i], 3),
        ratio: round(large[i] / small[i]),
        target: '≤ 1.5',
      })),
    );
    return rows;
  } finally {
    rmSync(project, { recursive: true, force: true });
    cluster.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await benchPostgres()) console.log(row);
}
