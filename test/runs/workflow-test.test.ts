// Workflow tests (docs/decisions.md, "Workflow tests"): POST /api/workflows/{name}/test runs the
// workflow for real with its agents answered from a fixture — no agent process starts (the fake
// agent's log stays empty) — its gates decided by the fixture, and its expectations checked.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import {
  api,
  cleanupAll,
  projectWithWorkflows,
  setProcessEnv,
  startRun,
  startServer,
  tempDir,
  waitFor,
  waitForRun,
  waitForStatus,
  writeWorkflows,
} from '../helpers/runs.js';

let server: TestServer;
let project: string;
let agentLog: string;

const REVIEWED = {
  name: 'reviewed',
  nodes: [
    { id: 'plan', prompt: 'Plan: $ARGUMENTS' },
    { id: 'check', bash: 'printf "%s\\n" $plan.output | grep -q "good plan" && echo "checked: $ARGUMENTS"', depends_on: ['plan'] },
    { id: 'gate', approval: { message: 'Ship it?' }, depends_on: ['check'] },
    { id: 'ship', bash: 'echo shipped', depends_on: ['gate'] },
    { id: 'rescue', bash: 'echo rescued', depends_on: ['plan'], when: "$plan.output == 'bad plan'" },
  ],
};

// A node on an acp assistant this server has not configured: the fixture answers it all the same.
const ON_GEMINI = { name: 'on-gemini', nodes: [{ id: 'ask', assistant: 'gemini', prompt: 'Review: $ARGUMENTS' }] };

const PASSING = `
message: the login bug
nodes:
  plan: { output: a good plan }
approvals:
  gate: approve
expect:
  completed: [plan, check, gate, ship]
  skipped: [rescue]
  contains: { check: "checked: the login bug" }
`;

const agentCalls = () => (existsSync(agentLog) ? readFileSync(agentLog, 'utf8').trim().split('\n').filter(Boolean) : []);
const test = (body: Record<string, unknown>) => api(server, 'POST', '/api/workflows/reviewed/test', { cwd: project, ...body });

beforeAll(async () => {
  project = await projectWithWorkflows([REVIEWED, ON_GEMINI]);
  agentLog = join(await tempDir('svc-fixture-log-'), 'claude.jsonl');
  setProcessEnv({ FAKE_CLAUDE_LOG: agentLog });
  server = await startServer();
});
afterAll(cleanupAll);

describe('POST /api/workflows/{name}/test', () => {
  it("answers a node on an acp assistant the server's configuration lacks from the fixture", async () => {
    const fixture = 'nodes:\n  ask: { output: reviewed on gemini }\nexpect:\n  contains: { ask: "reviewed on gemini" }\n';
    const { status, body } = await api(server, 'POST', '/api/workflows/on-gemini/test', { cwd: project, fixture });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ passed: true, failures: [], status: 'completed' });
  });

  it('runs the workflow with the fixture answering the agent: every expectation holds, no agent process started, the run is deleted', async () => {
    const { status, body } = await test({ fixture: PASSING, fixtureName: 'reviewed.yaml' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'completed', passed: true, failures: [], kept: false });
    expect(body.nodes.plan).toMatchObject({ status: 'completed', output: 'a good plan' });
    expect(body.nodes.check.output).toBe('checked: the login bug');
    expect(agentCalls()).toEqual([]);
    expect((await api(server, 'GET', `/api/workflows/runs/${body.runId}`)).status).toBe(404);

    // The same workflow run for real does start the (fake) agent: the log above is empty for the fixture's sake.
    const real = await waitForRun(server, await startRun(server, 'reviewed', { message: 'x', cwd: project }));
    expect(real.nodes.plan.status).toBe('completed');
    expect(agentCalls()).toHaveLength(1);
  });

  it('with keep: the run stays, marked trigger "test", and is kept out of benchmarks', async () => {
    const { body } = await test({ fixture: PASSING, keep: true });
    expect(body).toMatchObject({ passed: true, kept: true });
    const run = (await api(server, 'GET', `/api/workflows/runs/${body.runId}`)).body;
    expect(run).toMatchObject({ trigger: 'test', status: 'completed', costUsd: 0 });
    expect(run.events[0]).toMatchObject({ type: 'run_created', trigger: 'test' });
    const bench = (await api(server, 'GET', '/api/runs/benchmark?workflow=reviewed')).body;
    // Measured: the real run of the first test alone (it ended failed: the fake agent's plan is not "a good plan").
    const measured = (await api(server, 'GET', '/api/workflows/runs?workflow=reviewed&status=completed,failed')).body.runs;
    expect(measured.map((r: { trigger: string }) => r.trigger).sort()).toEqual(['api', 'test']);
    expect(bench.summary.runs).toBe(1);
  });

  it('names each broken expectation: a node the fixture fails, what it then skipped, a gate left undecided', async () => {
    const fixture = `
nodes:
  plan: { fail: the planner gave up }
expect:
  completed: [plan, ship]
  failed: [check]
  contains: { plan: good }
`;
    const { status, body } = await test({ fixture });
    expect(status).toBe(200);
    expect(body.passed).toBe(false);
    expect(body.status).toBe('failed');
    expect(body.failures).toEqual([
      "node 'plan': expected completed, was failed (the planner gave up)",
      expect.stringMatching(/^node 'ship': expected completed, was skipped/),
      expect.stringMatching(/^node 'check': expected failed, was skipped/),
      'node \'plan\': output does not contain "good" (no output)',
    ]);
    const undecided = await test({ fixture: 'nodes:\n  plan: { output: a good plan }\n' });
    expect(undecided.body).toMatchObject({ status: 'cancelled', passed: false });
    expect(undecided.body.failures[0]).toMatch(/^approval 'gate': the run paused there and the fixture does not decide it/);
    expect(agentCalls()).toHaveLength(1);
  });

  it('an invalid fixture is 422 invalid_fixture with file:line:col for each problem; nothing runs', async () => {
    const fixture =
      'nodes:\n  plan: { output: ok, fail: no }\n  nope: { output: x }\n  check: { output: y }\napprovals:\n  plan: approve\nexpect:\n  completed: [gone]\nextra: 1\n';
    const { status, body } = await test({ fixture, fixtureName: 'fx.yaml' });
    expect(status).toBe(422);
    expect(body.error).toBe('invalid_fixture');
    expect(body.errors).toEqual([
      expect.stringMatching(/^fx\.yaml:2:\d+: nodes\.plan: give exactly one of output or fail$/),
      expect.stringMatching(/^fx\.yaml:3:\d+: nodes\.nope: no node 'nope' in workflow 'reviewed'$/),
      expect.stringMatching(/^fx\.yaml:4:\d+: nodes\.check: node 'check' is a bash node; only prompt and command nodes/),
      expect.stringMatching(/^fx\.yaml:6:\d+: approvals\.plan: node 'plan' is a prompt node; approvals decide approval nodes only$/),
      expect.stringMatching(/^fx\.yaml:8:\d+: expect\.completed\[0\]: no node 'gone'/),
      expect.stringMatching(/^fx\.yaml:9:\d+: .*extra/),
    ]);
    expect((await api(server, 'POST', '/api/workflows/nothing-here/test', { cwd: project })).status).toBe(404);
    expect(agentCalls()).toHaveLength(1);
  });
});

describe('a test run its process did not finish', () => {
  it('is failed by the next server that would execute it, never run with real agents', async () => {
    const home = await tempDir('svc-fixture-home-');
    await writeWorkflows(project, [{ name: 'blocker', nodes: [{ id: 'hold', bash: 'sleep 30' }] }]);
    const env = { SVC_MAX_CONCURRENT_RUNS: '1' };
    // On a socket: the client that asked goes away mid-request, as a closed connection.
    const first = await startServer({ socket: true, home, env });
    await startRun(first, 'blocker', { message: '', cwd: project });
    // The test's run waits `pending` behind the blocker when the server stops.
    const asked = new AbortController();
    const answer = fetch(`${first.url}/api/workflows/reviewed/test`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ cwd: project, fixture: PASSING }),
      signal: asked.signal,
    }).catch(() => undefined);
    const pending = await waitFor(async () => (await api(first, 'GET', '/api/workflows/runs?workflow=reviewed&status=pending')).body.runs[0]);
    expect(pending.trigger).toBe('test');
    asked.abort();
    await answer;
    await first.stop();

    const second = await startServer({ socket: true, home, env });
    const failed = await waitForStatus(second, pending.id, 'failed');
    expect(failed.error).toMatch(/a workflow test's run continues only in the process that started it/);
    expect(failed.nodes.plan.status).not.toBe('completed');
    expect(agentCalls()).toHaveLength(1);
  });
});
