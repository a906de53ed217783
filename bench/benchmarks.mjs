// Benchmark and dashboard queries (issue 11), run by `npm run bench` through bench/run.mjs on the
// built code: the latency of GET /api/runs/benchmark and GET /api/dashboard/runs with 10,000 run
// records stored, against the same with 100 (target ≤ 1.5×: a query's cost follows its `limit`,
// not the history). Records are written as files before each server opens its store.
// Each row: { name, value, unit, reference, ratio, target }.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { latency } from './measure.mjs';
import { startServer } from '../dist/server/listen.js';
import { loadSettings } from '../dist/shared/settings.js';

const WORKFLOWS = ['build', 'deploy', 'review', 'triage'];
const round = (n, digits = 3) => Number(n.toFixed(digits));

/** Run `j` of `count` ended runs, one a minute, four nodes each (one with an agent's cost), a tenth failed (bench/postgres.mjs seeds the same). */
export function benchRunRecord(j, count, now) {
  const iso = (t) => new Date(t).toISOString();
  const id = `run_${String(j).padStart(8, '0')}`;
  const finished = now - (count - j) * 60_000;
  const started = finished - 1000 - (j % 97) * 10;
  const node = (ms, cost = null) => ({
    status: 'completed',
    startedAt: iso(started),
    finishedAt: iso(started + ms),
    durationMs: ms,
    costUsd: cost,
    output: 'ok',
    error: null,
    attempts: 1,
  });
  const record = {
    id,
    workflow: WORKFLOWS[j % WORKFLOWS.length],
    status: j % 10 === 0 ? 'failed' : 'completed',
    message: `task ${j}`,
    conversationId: `c-${id}`,
    platformId: `c-${id}`,
    workspaceId: j % 3 === 0 ? 'ws-bench' : null,
    cwd: '/tmp',
    trigger: 'api',
    createdAt: iso(started),
    startedAt: iso(started),
    finishedAt: iso(finished),
    updatedAt: iso(finished),
    error: null,
    costUsd: 0.01,
    nodes: { plan: node(200, 0.01), lint: node(100 + (j % 13)), test: node(500 + (j % 31)), ship: node(50) },
    resumePending: false,
    variables: {},
    definition: null,
  };
  return record;
}

/** `count` ended runs (benchRunRecord), written as files before the server opens its store. */
async function seed(home, count) {
  const now = Date.now();
  for (let i = 0; i < count; i += 500) {
    const writes = [];
    for (let j = i; j < Math.min(count, i + 500); j++) {
      const record = benchRunRecord(j, count, now);
      const dir = join(home, 'data', 'runs', record.id);
      writes.push(mkdir(dir, { recursive: true }).then(() => writeFile(join(dir, 'record.json'), JSON.stringify(record))));
    }
    await Promise.all(writes);
  }
}

const QUERIES = [
  ['GET /api/runs/benchmark (limit 20)', '/api/runs/benchmark?workflow=build'],
  ['GET /api/runs/benchmark (limit 200)', '/api/runs/benchmark?workflow=build&limit=200'],
  ['GET /api/dashboard/runs (newest 50)', '/api/dashboard/runs'],
  // Pages of the same size in both stores (100 runs hold 10 failed, 34 on the workspace), so only the history differs.
  ['GET /api/dashboard/runs (failed, 7d, page of 10)', '/api/dashboard/runs?status=failed&since=7d&limit=10'],
  ['GET /api/dashboard/runs (one workspace, page of 20)', '/api/dashboard/runs?workspace_id=ws-bench&limit=20'],
];

/** Opens a server on a store of `count` runs and measures every query on it. */
async function measure(count) {
  const home = await mkdtemp(join(tmpdir(), 'svc-bench-runs-'));
  try {
    await seed(home, count);
    const settings = loadSettings({ ...process.env, SVC_HOME: home, PORT: '0', SVC_LOG_LEVEL: 'error' });
    const server = await startServer({ settings, cwd: home });
    try {
      const out = [];
      for (const [, path] of QUERIES) out.push(await latency(server.url, path));
      return out;
    } finally {
      await server.close();
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

export async function benchBenchmarks() {
  const small = await measure(100);
  const large = await measure(10_000);
  return QUERIES.map(([name], i) => ({
    name: `runs: ${name}, 10,000 vs 100 runs`,
    value: round(large[i]),
    unit: 'ms',
    reference: round(small[i]),
    ratio: round(large[i] / small[i]),
    target: '≤ 1.5',
  }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await benchBenchmarks()) console.log(row);
}
