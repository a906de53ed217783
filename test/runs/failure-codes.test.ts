// A failed node carries its code on the record, not only in a sentence (issue 29): `errorCode` on
// the node, as its `node_failed` event's `code`, and the run's `errorCode` says why the run failed
// (docs/decisions.md, Runs: "Failure codes").
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { api, cleanupAll, type Json, projectWithWorkflows as makeProject, startRun, startServer, tempDir, waitForRun } from '../helpers/runs.js';

let server: TestServer;
let project: string;
let marker: string;

const failedEvent = (run: Json, nodeId: string): Json | undefined => run.events.find((e: Json) => e.type === 'node_failed' && e.nodeId === nodeId);
const runOf = async (workflow: string, message = '') => waitForRun(server, await startRun(server, workflow, { message, cwd: project }), undefined, 30_000);

beforeAll(async () => {
  marker = join(await tempDir('svc-codes-'), 'fixed');
  project = await makeProject([
    { name: 'bash-stall', nodes: [{ id: 'sleeper', bash: 'sleep 30', idle_timeout: '1s' }] },
    { name: 'agent-stall', nodes: [{ id: 'mute', prompt: 'go quiet [fake:silent-after-first]', idle_timeout: '1s' }] },
    {
      name: 'two-failures',
      nodes: [
        { id: 'exits', bash: 'exit 3' },
        { id: 'bounded', bash: 'sleep 30', timeout: '1s' },
      ],
    },
    { name: 'limit', nodes: [{ id: 'hit', prompt: 'step [fake:usage-limit=Claude AI usage limit reached]' }] },
    { name: 'event-wait', nodes: [{ id: 'build', wait: { event: 'build_finished', timeout: '1s' } }] },
    // Fails until the marker exists.
    { name: 'flaky', nodes: [{ id: 'once', bash: `test -e '${marker}' || exit 3` }] },
  ]);
  server = await startServer();
});
afterAll(cleanupAll);

describe('a node stopped by its idle_timeout', () => {
  it('bash: errorCode stalled on the node and on the run', async () => {
    const run = await runOf('bash-stall');
    expect(run.status).toBe('failed');
    expect(run.nodes.sleeper).toMatchObject({ status: 'failed', errorCode: 'stalled', error: 'no output for 1s (idle_timeout); bash was stopped' });
    expect(failedEvent(run, 'sleeper')).toMatchObject({ code: 'stalled' });
    expect(run.errorCode).toBe('stalled');
    expect(run.events.find((e: Json) => e.type === 'run_failed')).toMatchObject({ code: 'stalled' });
  });

  it('an agent: the same', async () => {
    const run = await runOf('agent-stall');
    expect(run.nodes.mute).toMatchObject({ status: 'failed', errorCode: 'stalled' });
    expect(run.errorCode).toBe('stalled');
  });
});

it('each failed node has its own code; the run takes the first failed node’s', async () => {
  const run = await runOf('two-failures');
  expect(run.nodes.exits).toMatchObject({ status: 'failed', errorCode: 'exit_code', error: 'exited with code 3' });
  expect(run.nodes.bounded).toMatchObject({ status: 'failed', errorCode: 'timeout' });
  expect(run.errorCode).toBe('exit_code');
});

it('a usage limit: usage_limit on the node and the run', async () => {
  const run = await runOf('limit');
  expect(run.nodes.hit).toMatchObject({ status: 'failed', errorCode: 'usage_limit' });
  expect(run.nodes.hit.resumeAt).toEqual(expect.any(String));
  expect(run.errorCode).toBe('usage_limit');
});

it('a wait whose event does not come: wait_timeout on the node and the run', async () => {
  const run = await runOf('event-wait');
  expect(run.nodes.build).toMatchObject({ status: 'failed', errorCode: 'wait_timeout' });
  expect(run.errorCode).toBe('wait_timeout');
});

it('a resume clears the codes; a completed run has none', async () => {
  const failed = await runOf('flaky');
  expect(failed).toMatchObject({ status: 'failed', errorCode: 'exit_code' });
  await writeFile(marker, '');
  expect((await api(server, 'POST', `/api/workflows/runs/${failed.id}/resume`)).status).toBe(200);
  expect(await startRun(server, 'flaky', { message: '', cwd: project, conversationId: failed.conversationId })).toBe(failed.id);
  const resumed = await waitForRun(server, failed.id, (r) => r.status === 'completed' || r.status === 'failed');
  expect(resumed).toMatchObject({ status: 'completed', errorCode: null });
  expect(resumed.nodes.once.errorCode).toBeUndefined();
});
