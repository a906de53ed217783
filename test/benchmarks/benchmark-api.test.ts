// GET /api/runs/benchmark, /compare, /workflows against hand-computed fixtures: nearest-rank
// percentiles over 1, 2, 20 and 200 runs, the `since` forms, limit edges, disjoint compare.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHome, startTestServer, type TestServer } from '../helpers/server.js';
import { runId, writeRuns, type RunFixture } from '../helpers/run-records.js';

const HOUR = 3_600_000;
const NOW = Date.now();
let server: TestServer;

const get = (path: string) => server.json('GET', path);

/** A summary of runs that never waited at a gate or a wait node: all of their time is work. */
const withoutWaits = (wall: { p50Ms: number; p95Ms: number; p99Ms: number; runs: number; usd: number }) => ({
  ...wall,
  workP50Ms: wall.p50Ms,
  workP95Ms: wall.p95Ms,
  waitP50Ms: 0,
  waitP95Ms: 0,
});

beforeAll(async () => {
  const home = await makeHome();
  const runs: RunFixture[] = [];
  let n = 0;
  // one: a single run of 1,000 ms.
  runs.push({ id: runId(++n), workflow: 'one', ms: 1000, finishedAtMs: NOW - HOUR, nodes: { a: { ms: 400, cost: 0.5 } }, costUsd: 0.5 });
  // two: 100 and 200 ms.
  for (const ms of [100, 200]) runs.push({ id: runId(++n), workflow: 'two', ms, finishedAtMs: NOW - HOUR + ms, nodes: { a: { ms } } });
  // twenty: 10, 20, … 200 ms, the newest the slowest; node b skipped in odd runs, c costs in even ones.
  for (let i = 1; i <= 20; i++) {
    runs.push({
      id: runId(++n),
      workflow: 'twenty',
      status: i % 5 === 0 ? 'failed' : 'completed',
      ms: i * 10,
      finishedAtMs: NOW - 30 * HOUR + i * 1000,
      nodes: {
        a: { ms: i },
        b: i % 2 ? { status: 'skipped' } : { ms: 1000 + i },
        c: { ms: 5, cost: i % 2 ? null : 0.25 },
      },
      costUsd: i % 2 ? null : 0.25,
    });
  }
  // two hundred: 1 … 200 ms, one a day back from now (run i finished 200 − i days ago).
  for (let i = 1; i <= 200; i++) {
    runs.push({ id: runId(++n), workflow: 'hundreds', ms: i, finishedAtMs: NOW - (200 - i) * 24 * HOUR - HOUR, nodes: { a: { ms: i } } });
  }
  // Not measured: cancelled, paused.
  runs.push({ id: 'run_cancelled', workflow: 'two', status: 'cancelled', ms: 99_999, finishedAtMs: NOW, nodes: { a: { ms: 99_999 } } });
  runs.push({ id: 'run_gated', workflow: 'gated', status: 'paused', ms: 5, finishedAtMs: NOW, nodes: { a: { ms: 5 } } });
  // Disjoint node sets for compare.
  runs.push({ id: 'run_cmp_a', workflow: 'cmp', ms: 50, finishedAtMs: NOW, nodes: { x: { ms: 10, cost: 0.1 }, shared: { ms: 30 } } });
  runs.push({ id: 'run_cmp_b', workflow: 'cmp', ms: 60, finishedAtMs: NOW, nodes: { shared: { ms: 45, cost: 0.2 }, y: { ms: 7 }, z: { status: 'skipped' } } });
  await writeRuns(home, runs);
  server = await startTestServer({ home });
}, 60_000);

afterAll(() => server?.stop({ keepHome: false }));

describe('GET /api/runs/benchmark', () => {
  it('one run: every percentile is its time', async () => {
    const { status, body } = await get('/api/runs/benchmark?workflow=one');
    expect(status).toBe(200);
    expect(body).toEqual({
      summary: withoutWaits({ p50Ms: 1000, p95Ms: 1000, p99Ms: 1000, runs: 1, usd: 0.5 }),
      nodes: [{ stepName: 'a', p50Ms: 400, p95Ms: 400, totalRuns: 1, runsWithCost: 1, totalCostUsd: 0.5 }],
    });
  });

  it('two runs: p50 is the lower, p95 and p99 the higher (nearest rank); a cancelled run is not measured', async () => {
    const { body } = await get('/api/runs/benchmark?workflow=two');
    expect(body.summary).toEqual(withoutWaits({ p50Ms: 100, p95Ms: 200, p99Ms: 200, runs: 2, usd: 0 }));
    expect(body.nodes).toEqual([{ stepName: 'a', p50Ms: 100, p95Ms: 200, totalRuns: 2, runsWithCost: 0, totalCostUsd: 0 }]);
  });

  it('twenty runs (failed ones included): ranks 10, 19, 20; skips are not executions; unknown costs are not zeros', async () => {
    const { body } = await get('/api/runs/benchmark?workflow=twenty');
    expect(body.summary).toEqual(withoutWaits({ p50Ms: 100, p95Ms: 190, p99Ms: 200, runs: 20, usd: 2.5 }));
    const byName = Object.fromEntries(body.nodes.map((n: any) => [n.stepName, n]));
    expect(byName.a).toEqual({ stepName: 'a', p50Ms: 10, p95Ms: 19, totalRuns: 20, runsWithCost: 0, totalCostUsd: 0 });
    // b ran in the 10 even runs: 1002, 1004, … 1020 → ranks 5 and 10.
    expect(byName.b).toEqual({ stepName: 'b', p50Ms: 1010, p95Ms: 1020, totalRuns: 10, runsWithCost: 0, totalCostUsd: 0 });
    expect(byName.c).toEqual({ stepName: 'c', p50Ms: 5, p95Ms: 5, totalRuns: 20, runsWithCost: 10, totalCostUsd: 2.5 });
  });

  it('two hundred runs: the default limit measures the newest 20; limit=200 all of them', async () => {
    const recent = (await get('/api/runs/benchmark?workflow=hundreds')).body;
    expect(recent.summary).toEqual(withoutWaits({ p50Ms: 190, p95Ms: 199, p99Ms: 200, runs: 20, usd: 0 }));
    const all = (await get('/api/runs/benchmark?workflow=hundreds&limit=200')).body;
    expect(all.summary).toEqual(withoutWaits({ p50Ms: 100, p95Ms: 190, p99Ms: 198, runs: 200, usd: 0 }));
    expect(all.nodes[0]).toMatchObject({ stepName: 'a', p50Ms: 100, p95Ms: 190, totalRuns: 200 });
  });

  it.each([
    // run i finished (200 − i) days and an hour ago
    ['24h', 1],
    ['2d', 2],
    ['1w', 7],
    ['10w', 70],
    [new Date(NOW - 3 * 24 * HOUR - 2 * HOUR).toISOString(), 4],
    [new Date(NOW - 9 * 24 * HOUR).toISOString().slice(0, 10), undefined],
  ])('since=%s', async (since, runs) => {
    const { status, body } = await get(`/api/runs/benchmark?workflow=hundreds&limit=200&since=${encodeURIComponent(since)}`);
    expect(status).toBe(200);
    if (runs !== undefined) expect(body.summary.runs).toBe(runs);
    else expect([9, 10]).toContain(body.summary.runs); // a date is midnight UTC: 9 or 10 days back, by the hour of the test
  });

  it.each(['7x', 'yesterday', '-1d', '2026-13-45', '1.5d'])('since=%s is 400 invalid_since', async (since) => {
    const { status, body } = await get(`/api/runs/benchmark?workflow=hundreds&since=${since}`);
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_since');
  });

  it('limit edges: 1 and 200 are measured; 201, 0 and "x" are 400 invalid_limit', async () => {
    expect((await get('/api/runs/benchmark?workflow=hundreds&limit=1')).body.summary).toEqual(
      withoutWaits({ p50Ms: 200, p95Ms: 200, p99Ms: 200, runs: 1, usd: 0 }),
    );
    expect((await get('/api/runs/benchmark?workflow=hundreds&limit=200')).body.summary.runs).toBe(200);
    for (const limit of ['201', '0', 'x', '-1', '2.5']) {
      const { status, body } = await get(`/api/runs/benchmark?workflow=hundreds&limit=${limit}`);
      expect(status, limit).toBe(400);
      expect(body.error).toBe('invalid_limit');
    }
  });

  it('a workflow without measured runs is zeros, not an error; no workflow is 400', async () => {
    for (const workflow of ['nothing-here', 'gated']) {
      expect((await get(`/api/runs/benchmark?workflow=${workflow}`)).body).toEqual({
        summary: withoutWaits({ p50Ms: 0, p95Ms: 0, p99Ms: 0, runs: 0, usd: 0 }),
        nodes: [],
      });
    }
    const { status, body } = await get('/api/runs/benchmark');
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_request');
  });
});

describe('GET /api/runs/benchmark/compare', () => {
  it('lists the union of executed nodes; an absent side is null, and so is its delta', async () => {
    const { status, body } = await get('/api/runs/benchmark/compare?runA=run_cmp_a&runB=run_cmp_b');
    expect(status).toBe(200);
    expect(body.nodes).toEqual([
      { stepName: 'x', runAMs: 10, runBMs: null, deltaMs: null, runACostUsd: 0.1, runBCostUsd: null },
      { stepName: 'shared', runAMs: 30, runBMs: 45, deltaMs: 15, runACostUsd: null, runBCostUsd: 0.2 },
      { stepName: 'y', runAMs: null, runBMs: 7, deltaMs: null, runACostUsd: null, runBCostUsd: null },
    ]);
  });

  it('an unknown run is 404 run_not_found; a missing one is 400', async () => {
    const unknown = await get('/api/runs/benchmark/compare?runA=run_cmp_a&runB=run_nope_nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('run_not_found');
    const missing = await get('/api/runs/benchmark/compare?runA=run_cmp_a');
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_request');
  });
});

describe('GET /api/runs/benchmark/workflows', () => {
  it('names every workflow with a run record, sorted', async () => {
    const { body } = await get('/api/runs/benchmark/workflows');
    expect(body).toEqual({ workflows: ['cmp', 'gated', 'hundreds', 'one', 'twenty', 'two'] });
  });
});
