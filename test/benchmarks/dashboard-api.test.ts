// GET /api/dashboard/runs: filters, pagination, counts per state, and the enriched rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHome, startTestServer, type TestServer } from '../helpers/server.js';
import { runId, writeRuns, type RunFixture } from '../helpers/run-records.js';

const HOUR = 3_600_000;
const NOW = Date.now();
let server: TestServer;
const get = (path: string) => server.json('GET', path);

beforeAll(async () => {
  const home = await makeHome();
  const runs: RunFixture[] = [];
  // 12 runs, one an hour back from now (run 12 the newest): build in ws-1 for even ones, deploy otherwise.
  for (let i = 1; i <= 12; i++) {
    runs.push({
      id: runId(i),
      workflow: i % 3 === 0 ? 'deploy' : 'build',
      status: i % 4 === 0 ? 'failed' : 'completed',
      ms: 1000,
      finishedAtMs: NOW - (12 - i) * HOUR - 10 * 60_000,
      workspaceId: i % 2 === 0 ? 'ws-1' : null,
      nodes: { a: { ms: 400, cost: 0.25 }, b: { status: 'skipped' } },
      costUsd: 0.25,
    });
  }
  runs.push({ id: runId(13), workflow: 'build', status: 'paused', ms: 500, finishedAtMs: NOW, nodes: { a: { ms: 1 }, gate: { status: 'waiting_approval' } } });
  await writeRuns(home, runs);
  server = await startTestServer({ home });
}, 60_000);

afterAll(() => server?.stop());

describe('GET /api/dashboard/runs', () => {
  it('pages newest first with the total and the matches per state', async () => {
    const { status, body } = await get('/api/dashboard/runs?limit=5');
    expect(status).toBe(200);
    expect(body.total).toBe(13);
    expect(body.runs.map((r: any) => r.id)).toEqual([13, 12, 11, 10, 9].map(runId));
    expect(body.counts).toEqual({ pending: 0, running: 0, paused: 1, waiting: 0, completed: 9, failed: 3, cancelled: 0, abandoned: 0 });
    const next = (await get('/api/dashboard/runs?limit=5&offset=10')).body;
    expect(next.runs.map((r: any) => r.id)).toEqual([3, 2, 1].map(runId));
  });

  it('enriches each run with its duration, cost, node counts, current node, trigger and workspace', async () => {
    const { body } = await get('/api/dashboard/runs?limit=2');
    const [paused, ended] = body.runs;
    expect(paused).toMatchObject({ status: 'paused', currentNode: 'gate', nodeCounts: { completed: 1, waiting_approval: 1 }, trigger: 'api' });
    expect(ended).toMatchObject({ durationMs: 1000, costUsd: 0.25, currentNode: null, nodeCounts: { completed: 1, skipped: 1 }, workspaceId: 'ws-1' });
    expect(ended).not.toHaveProperty('definition');
  });

  it('filters by status (a list), workflow, workspace and time; counts ignore only the status filter', async () => {
    const failed = (await get('/api/dashboard/runs?status=failed,paused')).body;
    expect(failed.runs.map((r: any) => r.id)).toEqual([13, 12, 8, 4].map(runId));
    expect(failed.total).toBe(4);
    expect(failed.counts.completed).toBe(9);
    const deploy = (await get('/api/dashboard/runs?workflow=deploy')).body;
    expect(deploy.runs.map((r: any) => r.id)).toEqual([12, 9, 6, 3].map(runId));
    const ws = (await get('/api/dashboard/runs?workspace_id=ws-1&workflow=build')).body;
    expect(ws.runs.map((r: any) => r.id)).toEqual([10, 8, 4, 2].map(runId));
    // Run i was created (12 − i) hours and 10 minutes ago, run 13 just now: since 3h → runs 10 to 13.
    expect((await get('/api/dashboard/runs?since=3h')).body.runs.map((r: any) => r.id)).toEqual([13, 12, 11, 10].map(runId));
    const until = new Date(NOW - 9 * HOUR).toISOString();
    expect((await get(`/api/dashboard/runs?until=${until}`)).body.runs.map((r: any) => r.id)).toEqual([3, 2, 1].map(runId));
  });

  it.each([
    ['status=done', 'invalid_request'],
    ['limit=0', 'invalid_request'],
    ['limit=201', 'invalid_request'],
    ['offset=-1', 'invalid_request'],
    ['since=soon', 'invalid_since'],
    ['until=later', 'invalid_until'],
  ])('%s is 400 %s', async (query, code) => {
    const { status, body } = await get(`/api/dashboard/runs?${query}`);
    expect(status).toBe(400);
    expect(body.error).toBe(code);
  });
});
