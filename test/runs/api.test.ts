// The run API over a real server: start (202, 404 at once, 400s), the run record of docs/contract.md, "Run states",
// by-worker lookup, and the list's filters and pagination.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/error-body.js';
import type { TestServer } from '../helpers/server.js';
import { api, cleanupAll, getRun, projectWithWorkflows, startRun, startServer, waitForRun, waitForStatus } from '../helpers/runs.js';

let server: TestServer;
let project: string;

beforeAll(async () => {
  project = await projectWithWorkflows([
    { name: 'quick', nodes: [{ id: 'hello', bash: 'echo "hi $ARGUMENTS"' }] },
    { name: 'other', nodes: [{ id: 'one', bash: 'true' }] },
    { name: 'failing', nodes: [{ id: 'boom', bash: 'exit 3' }] },
  ]);
  server = await startServer();
});
afterAll(cleanupAll);

describe('POST /api/workflows/{name}/run', () => {
  it('answers 202 {runId, status} and where it runs, and the run completes', async () => {
    const { status, body } = await api(server, 'POST', '/api/workflows/quick/run', { message: 'there', cwd: project });
    expect(status).toBe(202);
    expect(Object.keys(body).sort()).toEqual(['branch', 'cwd', 'runId', 'status', 'workspaceId']);
    // No registered workspace holds the project: the run is in place.
    expect(body).toMatchObject({ workspaceId: null, cwd: project, branch: null });
    expect(body.runId).toMatch(/\S/);
    expect(['pending', 'running']).toContain(body.status);
    const run = await waitForRun(server, body.runId);
    expect(run.status).toBe('completed');
    expect(run.nodes.hello.output).toBe('hi there');
  });

  it('answers 404 workflow_not_found at once for an unknown workflow, and creates no run', async () => {
    const before = await api(server, 'GET', '/api/workflows/runs?limit=200');
    const { status, body } = await api(server, 'POST', '/api/workflows/no-such-workflow/run', { message: 'x', cwd: project });
    expect(status).toBe(404);
    expectErrorBody(body, 'workflow_not_found');
    const after = await api(server, 'GET', '/api/workflows/runs?limit=200');
    expect(after.body.total).toBe(before.body.total);
  });

  it.each([
    ['no message', { cwd: '/tmp' }],
    ['message of the wrong type', { message: 42 }],
    ['conversationId of the wrong type', { message: 'x', conversationId: 7 }],
    ['an unknown key', { message: 'x', mesage: 'typo' }],
    ['a relative cwd', { message: 'x', cwd: 'relative/dir' }],
    ['a cwd that does not exist', { message: 'x', cwd: '/definitely/not/here' }],
  ])('answers 400 for a body with %s', async (_label, body) => {
    const answer = await api(server, 'POST', '/api/workflows/quick/run', body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expectErrorBody(answer.body, (answer.body as { error: string }).error);
    expect((answer.body as { error: string }).error).toMatch(/^invalid_(request|json)$/);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const response = await server.fetch('/api/workflows/quick/run', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{nope' });
    expect(response.status).toBe(400);
    expectErrorBody(await response.json(), 'invalid_json');
  });
});

describe('the run record', () => {
  it('carries every field of docs/contract.md, "Run states", and the detail adds events', async () => {
    const runId = await startRun(server, 'quick', { message: 'fields', conversationId: 'conv-fields', cwd: project });
    const run = await waitForRun(server, runId);
    for (const field of [
      'id',
      'workflow',
      'status',
      'message',
      'conversationId',
      'platformId',
      'workspaceId',
      'cwd',
      'trigger',
      'createdAt',
      'startedAt',
      'finishedAt',
      'error',
      'costUsd',
      'nodes',
      'events',
    ]) {
      expect(run, `field ${field}`).toHaveProperty(field);
    }
    expect(run).toMatchObject({
      id: runId,
      workflow: 'quick',
      status: 'completed',
      message: 'fields',
      conversationId: 'conv-fields',
      cwd: project,
      trigger: 'api',
      error: null,
      workspaceId: null,
    });
    expect(run.platformId).toMatch(/\S/);
    for (const at of [run.createdAt, run.startedAt, run.finishedAt]) expect(Number.isNaN(Date.parse(at))).toBe(false);
    expect(Date.parse(run.createdAt)).toBeLessThanOrEqual(Date.parse(run.startedAt));
    expect(Date.parse(run.startedAt)).toBeLessThanOrEqual(Date.parse(run.finishedAt));
    const node = run.nodes.hello;
    for (const field of ['status', 'startedAt', 'finishedAt', 'durationMs', 'costUsd', 'output', 'error', 'attempts'])
      expect(node, `node field ${field}`).toHaveProperty(field);
    expect(node).toMatchObject({ status: 'completed', output: 'hi fields', error: null, attempts: 1, costUsd: null });
    expect(node.durationMs).toBeGreaterThanOrEqual(0);
    const types = run.events.map((e: { type: string }) => e.type);
    expect(types[0]).toBe('run_created');
    expect(types).toEqual(expect.arrayContaining(['run_started', 'node_started', 'node_output', 'node_completed']));
    expect(types.at(-1)).toBe('run_completed');
    expect(run.events.map((e: { seq: number }) => e.seq)).toEqual(run.events.map((_: unknown, i: number) => i + 1));
    for (const event of run.events) expect(event).toMatchObject({ runId, at: expect.any(String) });
  });

  it('a failed run says which node failed and why', async () => {
    const runId = await startRun(server, 'failing', { message: '', cwd: project });
    const run = await waitForRun(server, runId);
    expect(run.status).toBe('failed');
    expect(run.error).toContain('boom');
    expect(run.nodes.boom).toMatchObject({ status: 'failed', error: expect.stringContaining('3') });
  });

  it('GET /api/workflows/runs/by-worker/{platformId} finds the run; an unknown id is 404', async () => {
    const runId = await startRun(server, 'quick', { message: 'worker', cwd: project });
    const run = await getRun(server, runId);
    const found = await api(server, 'GET', `/api/workflows/runs/by-worker/${encodeURIComponent(run.platformId)}`);
    expect(found.status).toBe(200);
    expect(found.body.id).toBe(runId);
    const missing = await api(server, 'GET', '/api/workflows/runs/by-worker/no-such-worker');
    expect(missing.status).toBe(404);
    expectErrorBody(missing.body, 'run_not_found');
    await waitForRun(server, runId);
  });

  it('GET of an unknown run id is 404 run_not_found', async () => {
    const answer = await api(server, 'GET', '/api/workflows/runs/run_does_not_exist_123');
    expect(answer.status).toBe(404);
    expectErrorBody(answer.body, 'run_not_found');
  });
});

describe('GET /api/workflows/runs', () => {
  let home: TestServer;
  const ids: Record<string, string[]> = { quickA: [], quickB: [], other: [], failing: [] };

  beforeAll(async () => {
    // A server of its own, so the counts are exact.
    home = await startServer();
    for (let i = 0; i < 3; i++) ids.quickA!.push(await startRun(home, 'quick', { message: `a${i}`, conversationId: 'conv-a', cwd: project }));
    for (let i = 0; i < 2; i++) ids.quickB!.push(await startRun(home, 'quick', { message: `b${i}`, conversationId: 'conv-b', cwd: project }));
    ids.other!.push(await startRun(home, 'other', { message: 'o', conversationId: 'conv-a', cwd: project }));
    ids.failing!.push(await startRun(home, 'failing', { message: 'f', cwd: project }));
    for (const id of Object.values(ids).flat()) await waitForRun(home, id);
  });

  const list = async (query: string) => {
    const answer = await api(home, 'GET', `/api/workflows/runs${query}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body as { runs: Array<{ id: string; status: string; workflow: string; conversationId: string | null }>; total: number };
  };

  it('lists every run, newest first, with total', async () => {
    const body = await list('');
    expect(body.total).toBe(7);
    expect(body.runs).toHaveLength(7);
    const created = body.runs.map((r) => (r as unknown as { createdAt: string }).createdAt);
    expect([...created].sort().reverse()).toEqual(created);
    expect(body.runs[0]).not.toHaveProperty('events');
  });

  it('filters by status, one or a comma list', async () => {
    const failed = await list('?status=failed');
    expect(failed.total).toBe(1);
    expect(failed.runs.map((r) => r.id)).toEqual(ids.failing);
    const both = await list('?status=completed,failed');
    expect(both.total).toBe(7);
    const none = await list('?status=paused,cancelled');
    expect(none).toEqual({ runs: [], total: 0 });
  });

  it('answers 400 for an unknown status', async () => {
    const answer = await api(home, 'GET', '/api/workflows/runs?status=completed,bogus');
    expect(answer.status).toBe(400);
    expectErrorBody(answer.body, 'invalid_request');
    expect(JSON.stringify(answer.body)).toContain('bogus');
  });

  it('filters by workflow and by conversationId', async () => {
    const other = await list('?workflow=other');
    expect(other.runs.map((r) => r.id)).toEqual(ids.other);
    const convA = await list('?conversationId=conv-a');
    expect(convA.total).toBe(4);
    expect(convA.runs.map((r) => r.id).sort()).toEqual([...ids.quickA!, ...ids.other!].sort());
    const quickA = await list('?conversationId=conv-a&workflow=quick');
    expect(quickA.runs.map((r) => r.id).sort()).toEqual([...ids.quickA!].sort());
  });

  it('pages with limit and offset; total counts every match', async () => {
    const all = (await list('?limit=200')).runs.map((r) => r.id);
    const first = await list('?limit=3');
    const second = await list('?limit=3&offset=3');
    const third = await list('?limit=3&offset=6');
    expect(first.total).toBe(7);
    expect(second.total).toBe(7);
    expect([...first.runs, ...second.runs, ...third.runs].map((r) => r.id)).toEqual(all);
    expect(third.runs).toHaveLength(1);
    expect((await list('?offset=100')).runs).toEqual([]);
  });

  it('answers 400 for a bad limit or offset', async () => {
    for (const query of ['?limit=0', '?limit=abc', '?offset=-1']) {
      const answer = await api(home, 'GET', `/api/workflows/runs${query}`);
      expect(answer.status, query).toBe(400);
    }
  });

  it('finds runs in their final states by status', async () => {
    await waitForStatus(home, ids.failing![0]!, 'failed');
    expect((await list('?status=completed&workflow=quick')).total).toBe(5);
  });
});
