// The scheduler: at most SVC_MAX_CONCURRENT_RUNS runs execute at once; the others wait `pending`
// and start in FIFO order. A pending run can be cancelled or abandoned without ever starting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { api, cleanupAll, eventTypes, getRun, type Json, projectWithWorkflows, startServer, waitForRun, waitForStatus } from '../helpers/runs.js';

let server: TestServer;
let project: string;

beforeAll(async () => {
  project = await projectWithWorkflows([
    { name: 'nap', nodes: [{ id: 'nap', bash: 'sleep 1; echo rested' }] },
    {
      name: 'gated-nap',
      nodes: [
        { id: 'gate', approval: { message: 'Go?' } },
        { id: 'nap', bash: 'sleep 1; echo rested', depends_on: ['gate'] },
      ],
    },
  ]);
  server = await startServer({ env: { SVC_MAX_CONCURRENT_RUNS: '1' } });
});
afterAll(cleanupAll);

const start = async (message: string) => {
  const answer = await api(server, 'POST', '/api/workflows/nap/run', { message, cwd: project });
  expect(answer.status).toBe(202);
  return answer.body as { runId: string; status: string };
};

describe('SVC_MAX_CONCURRENT_RUNS=1', () => {
  it('queues later runs as pending and runs them one at a time, in FIFO order', async () => {
    const started = [await start('first'), await start('second'), await start('third')];
    expect(started[0]!.status).toBe('running');
    expect(started[1]!.status).toBe('pending');
    expect(started[2]!.status).toBe('pending');

    // While the first runs, the others are still waiting (read them first: if the first is still
    // running afterwards, it was running while they were read).
    const second = await getRun(server, started[1]!.runId);
    const third = await getRun(server, started[2]!.runId);
    const first = await getRun(server, started[0]!.runId);
    if (first.status === 'running') {
      expect(second.status).toBe('pending');
      expect(third.status).toBe('pending');
      expect(second.startedAt).toBeNull();
      expect(second.nodes.nap.status).toBe('pending');
    }
    const pendingList = await api(server, 'GET', '/api/workflows/runs?status=pending');
    expect(pendingList.body.runs.every((r: Json) => r.startedAt === null)).toBe(true);

    const runs: Json[] = [];
    for (const { runId } of started) runs.push(await waitForRun(server, runId, undefined, 60_000));
    for (const run of runs) expect(run.status).toBe('completed');
    // FIFO: each started after the previous one finished (never two at once).
    for (let i = 1; i < runs.length; i++) {
      expect(Date.parse(runs[i]!.startedAt)).toBeGreaterThanOrEqual(Date.parse(runs[i - 1]!.finishedAt));
      expect(Date.parse(runs[i]!.nodes.nap.startedAt)).toBeGreaterThanOrEqual(Date.parse(runs[i - 1]!.nodes.nap.finishedAt));
    }
    // A queued run was created before it started.
    for (const run of runs) expect(eventTypes(run).slice(0, 2)).toEqual(['run_created', 'run_started']);
  }, 60_000);

  it('cancels or abandons a pending run without starting it; the queue moves on', async () => {
    const first = await start('runs');
    const cancelled = await start('cancelled while queued');
    const abandoned = await start('abandoned while queued');
    const last = await start('runs after');
    expect(cancelled.status).toBe('pending');

    const cancel = await api(server, 'POST', `/api/workflows/runs/${cancelled.runId}/cancel`);
    expect(cancel.status).toBe(200);
    expect(cancel.body.status).toBe('cancelled');
    const abandon = await api(server, 'POST', `/api/workflows/runs/${abandoned.runId}/abandon`);
    expect(abandon.status).toBe(200);
    expect(abandon.body.status).toBe('abandoned');

    await waitForStatus(server, last.runId, 'completed', 60_000);
    expect((await getRun(server, first.runId)).status).toBe('completed');
    for (const [id, status] of [
      [cancelled.runId, 'cancelled'],
      [abandoned.runId, 'abandoned'],
    ] as const) {
      const run = await getRun(server, id);
      expect(run.status).toBe(status);
      expect(run.startedAt).toBeNull();
      expect(eventTypes(run)).not.toContain('run_started');
      expect(eventTypes(run)).not.toContain('node_started');
    }
  }, 60_000);

  it('approve when every slot is taken: the run waits pending at the head of the queue', async () => {
    const gated = await api(server, 'POST', '/api/workflows/gated-nap/run', { message: 'gated', cwd: project });
    await waitForStatus(server, gated.body.runId, 'paused');
    const busy = await start('holds the slot');
    const queued = await start('queued before the approval');
    expect(queued.status).toBe('pending');

    const approve = await api(server, 'POST', `/api/workflows/runs/${gated.body.runId}/approve`);
    expect(approve.status).toBe(200);
    expect(approve.body.status).toBe('pending');

    const approved = await waitForStatus(server, gated.body.runId, 'completed', 60_000);
    const later = await waitForStatus(server, queued.runId, 'completed', 60_000);
    expect((await getRun(server, busy.runId)).status).toBe('completed');
    // Head of the queue: it ran before the run queued ahead of the approval.
    expect(Date.parse(later.startedAt)).toBeGreaterThanOrEqual(Date.parse(approved.finishedAt));
  }, 60_000);
});
