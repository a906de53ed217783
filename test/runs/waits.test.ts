// Durable waits and signals (docs/decisions.md, "Waits and signals") over a real server: a waiting run
// holds no run slot, continues when its time comes without running again what it ran, takes a
// signal's payload as the waiting node's output, answers 409 `not_waiting` to a signal nobody
// waits for, and fails `wait_timeout` when its event does not come in time.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/error-body.js';
import type { TestServer } from '../helpers/server.js';
import { api, cleanupAll, eventTypes, getRun, type Json, projectWithWorkflows, startRun, startServer, waitForRun, waitForStatus } from '../helpers/runs.js';

let server: TestServer;
let project: string;

/** Waiting, with its `run_waiting` event persisted. */
const isWaiting = (run: Json) => run.status === 'waiting' && eventTypes(run).at(-1) === 'run_waiting';

beforeAll(async () => {
  project = await projectWithWorkflows([
    {
      name: 'nap',
      nodes: [
        { id: 'before', bash: 'echo ran >> "$ARTIFACTS_DIR/before-count.txt"; echo before-output' },
        { id: 'nap', wait: { for: '2s' }, depends_on: ['before'] },
        { id: 'after', bash: 'echo "after $before.output"', depends_on: ['nap'] },
      ],
    },
    { name: 'quick', nodes: [{ id: 'one', bash: 'echo quick' }] },
    {
      name: 'ci',
      nodes: [
        { id: 'push', bash: 'echo pushed' },
        { id: 'build', wait: { event: 'build_finished' }, depends_on: ['push'] },
        { id: 'report', bash: 'printf "build said: %s\\n" $build.output', depends_on: ['build'] },
      ],
    },
    {
      name: 'impatient',
      nodes: [
        { id: 'build', wait: { event: 'build_finished', timeout: '1s' } },
        { id: 'never', bash: 'echo never', depends_on: ['build'] },
      ],
    },
  ]);
  server = await startServer({ env: { SVC_MAX_CONCURRENT_RUNS: '1' } });
});

afterAll(cleanupAll);

describe('wait: { for }', () => {
  it('holds no run slot: with one slot, another run starts and completes during the wait, then the wait continues without running its earlier nodes again', async () => {
    const napId = await startRun(server, 'nap', { message: 'nap', cwd: project });
    const waiting = await waitForRun(server, napId, isWaiting);
    expect(waiting.nodes.before.status).toBe('completed');
    expect(waiting.nodes.nap).toMatchObject({ status: 'waiting' });
    expect(Date.parse(waiting.wakeAt) - Date.parse(waiting.nodes.nap.startedAt)).toBe(2000);
    expect(waiting.nodes.nap.waitUntil).toBe(waiting.wakeAt);
    expect(waiting.events.at(-1)).toMatchObject({ type: 'run_waiting', nodes: [{ nodeId: 'nap', until: waiting.wakeAt }], wakeAt: waiting.wakeAt });
    // Shown as waiting in the list and the dashboard query, not as running.
    const listed = await api(server, 'GET', '/api/workflows/runs?status=waiting');
    expect(listed.body.runs.map((r: Json) => r.id)).toContain(napId);
    expect((await api(server, 'GET', '/api/health')).body.concurrency).toMatchObject({ running: 0 });

    // The one slot is free: another run starts at once and completes while the first still waits.
    const quickId = await startRun(server, 'quick', { message: 'meanwhile', cwd: project });
    const quick = await waitForStatus(server, quickId, 'completed');
    expect(Date.parse(quick.finishedAt)).toBeLessThan(Date.parse(waiting.wakeAt));
    expect((await getRun(server, napId)).status).toBe('waiting');

    const done = await waitForStatus(server, napId, 'completed');
    expect(done.nodes.nap).toMatchObject({ status: 'completed', output: '' });
    expect(done.nodes.after.output).toBe('after before-output');
    expect(eventTypes(done).filter((type) => type !== 'node_output')).toEqual([
      'run_created',
      'run_started',
      'node_started',
      'node_completed',
      'run_waiting',
      'run_woken',
      'node_completed',
      'node_started',
      'node_completed',
      'run_completed',
    ]);
    expect(done.events.find((e: Json) => e.type === 'run_woken')).toMatchObject({ nodeId: 'nap', by: 'time' });
    expect(done.wakeAt).toBeNull();
    // `before` ran once: the continued run skipped it.
    expect(readFileSync(join(server.home, 'data', 'runs', napId, 'artifacts', 'before-count.txt'), 'utf8')).toBe('ran\n');
  });
});

describe('wait: { event } and signals', () => {
  it("a signal's payload becomes the waiting node's output, which a later bash node reads as $<id>.output", async () => {
    const runId = await startRun(server, 'ci', { message: 'push it', cwd: project });
    const waiting = await waitForRun(server, runId, isWaiting);
    expect(waiting.nodes.build).toMatchObject({ status: 'waiting', waitEvent: 'build_finished' });
    expect(waiting.nodes.build.waitUntil).toBeUndefined();
    expect(waiting.wakeAt).toBeNull();

    const payload = { status: 'green', sha: "abc'; rm -rf /" };
    const signalled = await api(server, 'POST', `/api/workflows/runs/${runId}/signal`, { event: 'build_finished', payload });
    expect(signalled.status).toBe(200);
    expect(signalled.body.nodes.build).toMatchObject({ status: 'completed', output: JSON.stringify(payload) });
    const done = await waitForStatus(server, runId, 'completed');
    expect(done.nodes.report.output).toBe(`build said: ${JSON.stringify(payload)}`);
    expect(done.events.find((e: Json) => e.type === 'run_woken')).toMatchObject({ nodeId: 'build', by: 'signal', event: 'build_finished' });
  });

  it('a string payload is the output as it is; a signal for an event nobody waits for is 409 not_waiting', async () => {
    const runId = await startRun(server, 'ci', { message: 'push it', cwd: project });
    await waitForRun(server, runId, isWaiting);
    const wrong = await api(server, 'POST', `/api/workflows/runs/${runId}/signal`, { event: 'deploy_finished' });
    expect(wrong.status).toBe(409);
    expectErrorBody(wrong.body, 'not_waiting');
    expect(wrong.body.details).toEqual({ status: 'waiting', waitingFor: ['build_finished'] });
    expect((await getRun(server, runId)).status).toBe('waiting');

    const bad = await api(server, 'POST', `/api/workflows/runs/${runId}/signal`, { event: 'no spaces' });
    expect(bad.status).toBe(400);
    expectErrorBody(bad.body, 'invalid_request');

    expect((await api(server, 'POST', `/api/workflows/runs/${runId}/signal`, { event: 'build_finished', payload: 'plain text' })).status).toBe(200);
    const done = await waitForStatus(server, runId, 'completed');
    expect(done.nodes.report.output).toBe('build said: plain text');
    // Delivered once: the same signal again finds nobody waiting.
    const late = await api(server, 'POST', `/api/workflows/runs/${runId}/signal`, { event: 'build_finished' });
    expect(late.status).toBe(409);
    expectErrorBody(late.body, 'not_waiting');
    expect(late.body.details).toMatchObject({ status: 'completed' });
    const unknown = await api(server, 'POST', '/api/workflows/runs/run_nosuchrun000/signal', { event: 'build_finished' });
    expect(unknown.status).toBe(404);
    expectErrorBody(unknown.body, 'run_not_found');
  });

  it('a wait whose event does not come in time fails its node wait_timeout, and the run fails', async () => {
    const runId = await startRun(server, 'impatient', { message: 'wait', cwd: project });
    const run = await waitForStatus(server, runId, 'failed');
    expect(run.nodes.build).toMatchObject({ status: 'failed' });
    expect(run.nodes.build.error).toBe("wait_timeout: no 'build_finished' signal within 1s");
    expect(run.nodes.never.status).toBe('skipped');
    expect(run.events.find((e: Json) => e.type === 'node_failed')).toMatchObject({ nodeId: 'build', code: 'wait_timeout' });
    expect(run.events.find((e: Json) => e.type === 'run_woken')).toMatchObject({ nodeId: 'build', by: 'timeout' });
  });

  it('a waiting run can be cancelled; it keeps no wake-up time', async () => {
    const runId = await startRun(server, 'ci', { message: 'push it', cwd: project });
    await waitForRun(server, runId, isWaiting);
    const cancelled = await api(server, 'POST', `/api/workflows/runs/${runId}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', wakeAt: null });
    expect(cancelled.body.nodes.build).toMatchObject({ status: 'cancelled', error: 'cancelled' });
  });
});
