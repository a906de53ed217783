// `svc bench` keeps the time a run waited at an approval gate apart from the work (issue 32): a
// real run paused at its gate for a while, approved, then measured through the API and the built CLI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { killAllServes, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { api, cleanupAll, projectWithWorkflows, sleep, startRun, tempDir, waitForRun, waitForStatus, type Json } from '../helpers/runs.js';

/** How long the test's "person" leaves the gate waiting. */
const HUMAN_WAIT_MS = 1500;

let serve: ServeProcess;
let run: Json;

beforeAll(async () => {
  const project = await projectWithWorkflows([
    {
      name: 'gated',
      nodes: [
        { id: 'build', bash: 'echo built' },
        { id: 'gate', approval: { message: 'Ship it?' }, depends_on: ['build'] },
        { id: 'ship', bash: 'echo shipped', depends_on: ['gate'] },
      ],
    },
  ]);
  serve = await spawnServe({ home: await tempDir('svc-bench-waits-home-'), cwd: project });
  const runId = await startRun(serve, 'gated', { message: '', cwd: project });
  await waitForStatus(serve, runId, 'paused');
  // Time must pass here: it is what a person at the gate takes, and what the bench must keep apart.
  await sleep(HUMAN_WAIT_MS);
  expect((await api(serve, 'POST', `/api/workflows/runs/${runId}/approve`, {})).status).toBe(200);
  run = await waitForRun(serve, runId);
}, 60_000);
afterAll(async () => {
  await killAllServes();
  await cleanupAll();
});

describe('svc bench of a run that waited at a gate', () => {
  it('the API marks the gate as waiting and gives the work and the wait apart from the wall time', async () => {
    expect(run.status).toBe('completed');
    const { body } = await api(serve, 'GET', '/api/runs/benchmark?workflow=gated');
    const gate = body.nodes.find((node: Json) => node.stepName === 'gate');
    const build = body.nodes.find((node: Json) => node.stepName === 'build');
    expect(gate).toMatchObject({ waits: 'approval', totalRuns: 1 });
    expect(gate.p95Ms).toBeGreaterThanOrEqual(HUMAN_WAIT_MS);
    expect(build.waits).toBeUndefined();
    const { summary } = body;
    // The wall time is the spec's and includes the wait; the work is what is left of it.
    expect(summary.p95Ms).toBeGreaterThanOrEqual(HUMAN_WAIT_MS);
    expect(summary.waitP95Ms).toBe(gate.p95Ms);
    expect(summary.workP95Ms).toBe(summary.p95Ms - summary.waitP95Ms);
    expect(summary.workP95Ms).toBeLessThan(HUMAN_WAIT_MS);
  });

  it('`svc bench` lists the gate apart from the nodes that worked, and says how much was waiting', async () => {
    const shown = await runCli(['bench', 'gated'], { env: { SVC_URL: serve.url, NO_COLOR: '1' } });
    expect(shown.code, shown.stderr).toBe(0);
    const [head, waiting] = shown.stdout.split('waiting, not work (a person at an approval gate, a wait node):\n');
    expect(head).toMatch(/gated: 1 run · p50 \S+ · p95 \S+ · p99 \S+\n {2}work p50 \S+ · p95 \S+ {3}waiting p50 \S+ · p95 \S+ \(gates and waits\)\n/);
    // The work table has build and ship, not the gate; the gate is in its own table.
    expect(head).toMatch(/^build\t/m);
    expect(head).toMatch(/^ship\t/m);
    expect(head).not.toMatch(/^gate\t/m);
    expect(waiting).toMatch(/^gate\t\S+\t\S+\t1\tapproval$/m);
  });
});
