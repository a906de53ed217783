// The spend cap (docs/decisions.md, "Spend cap"): fake agents report a chosen cost, the run
// stops when its spend reaches its cap, and a resume with a higher cap continues it.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { FAKE_CODEX } from '../helpers/conversations.js';
import {
  api,
  cleanupAll,
  eventTypes,
  getRun,
  projectWithWorkflows,
  readJsonLines,
  setProcessEnv,
  startRun,
  startServer,
  tempDir,
  waitForDeath,
  waitForRun,
  writeWorkflows,
  type Json,
  type Workflow,
} from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';

// Two agents that stay busy (they never answer) and one that reports $1.50 once all three are up:
// the report crosses both 80% and the cap of $1.00 while the other two still run.
const overCap = (busy: string): Workflow => ({
  name: 'three-agents',
  max_cost_usd: 1,
  nodes: [
    { id: 'a', prompt: `wait ${busy}` },
    { id: 'b', prompt: `wait ${busy}` },
    { id: 'spender', prompt: 'spend [fake:await-calls=3][fake:cost=1.5]' },
    { id: 'later', bash: 'echo later', depends_on: ['spender'] },
  ],
});

let server: TestServer;
let project: string;
let agentLog: string;

beforeAll(async () => {
  project = await projectWithWorkflows([
    overCap('[fake:child]'),
    {
      name: 'capped-cli',
      max_cost_usd: 5,
      nodes: [
        { id: 'one', prompt: 'one [fake:cost=0.45]' },
        { id: 'two', prompt: 'two [fake:cost=0.1]', depends_on: ['one'] },
      ],
    },
    { name: 'codex-run', nodes: [{ id: 'one', prompt: 'hello', assistant: 'codex' }] },
    { name: 'codex-capped', max_cost_usd: 2, nodes: [{ id: 'one', prompt: 'hello', assistant: 'codex' }] },
  ]);
  agentLog = join(await tempDir('svc-spend-log-'), 'claude.jsonl');
  setProcessEnv({ FAKE_CLAUDE_LOG: agentLog });
  server = await startServer({ socket: true, env: { SVC_CODEX_BIN: FAKE_CODEX } });
});
afterAll(cleanupAll);

const calls = () => readJsonLines(agentLog);
const callOf = (text: string) => calls().filter((call) => String(call.stdin).startsWith(text));
const budgetArg = (call: Json) => call.argv[call.argv.indexOf('--max-budget-usd') + 1] as string;

describe('spend cap', () => {
  it('stops every agent of a run whose spend passes its cap, and resumes it only with a higher cap', async () => {
    const runId = await startRun(server, 'three-agents', { message: 'go', cwd: project });
    const stopped = await waitForRun(server, runId);

    expect(stopped.status).toBe('failed');
    expect(stopped.errorCode).toBe('budget_exceeded');
    expect(stopped.error).toMatch(/budget exceeded/);
    expect(stopped).toMatchObject({ maxCostUsd: 1, spentUsd: 1.5 });
    // The two busy agents were stopped, their processes gone.
    expect(stopped.nodes.a).toMatchObject({ status: 'cancelled', error: 'budget_exceeded', errorCode: 'budget_exceeded' });
    expect(stopped.nodes.b).toMatchObject({ status: 'cancelled', error: 'budget_exceeded', errorCode: 'budget_exceeded' });
    for (const call of [...callOf('wait'), ...callOf('spend')]) await waitForDeath(call.pid);
    expect(callOf('wait')).toHaveLength(2);
    // The spender completed; the node after it never started.
    expect(stopped.nodes.spender).toMatchObject({ status: 'completed', costUsd: 1.5 });
    expect(stopped.nodes.later.status).toBe('cancelled');
    const events = stopped.events as Json[];
    expect(events.some((e) => e.type === 'node_started' && e.nodeId === 'later')).toBe(false);
    // One report crossed 80% and the cap: both events, the warning first, then the run's failure.
    const budget = events.filter((e) => e.type.startsWith('budget_'));
    expect(budget).toMatchObject([
      { type: 'budget_warning', reason: 'threshold', spentUsd: 1.5, capUsd: 1, nodeId: 'spender' },
      { type: 'budget_exceeded', spentUsd: 1.5, capUsd: 1, nodeId: 'spender' },
    ]);
    expect(eventTypes(stopped).at(-1)).toBe('run_failed');
    expect(events.at(-1)).toMatchObject({ code: 'budget_exceeded' });
    // Each claude got what was left of the cap.
    for (const call of calls()) expect(budgetArg(call)).toBe('1.0000');

    // Resumed without a higher cap, or with one it already spent: 409 budget_exceeded.
    const refused = await api(server, 'POST', `/api/workflows/runs/${runId}/resume`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'budget_exceeded', details: { spentUsd: 1.5, capUsd: 1 } });
    expect((await api(server, 'POST', `/api/workflows/runs/${runId}/resume`, { maxCostUsd: 1.2 })).body.error).toBe('budget_exceeded');
    expect((await api(server, 'POST', `/api/workflows/runs/${runId}/resume`, { maxCostUsd: -1 })).status).toBe(400);

    // The workflow fixed so the busy agents answer, and a cap above the workflow's: the run continues.
    await writeWorkflows(project, [overCap('[fake:cost=0.1]')]);
    const marked = await api(server, 'POST', `/api/workflows/runs/${runId}/resume`, { maxCostUsd: 10 });
    expect(marked.status).toBe(200);
    expect(marked.body.maxCostUsd).toBe(10);
    const before = calls().length;
    expect(await startRun(server, 'three-agents', { message: 'go', cwd: project, conversationId: stopped.conversationId })).toBe(runId);
    const resumed = await waitForRun(server, runId, (run) => run.status === 'completed' || run.status === 'failed');
    expect(resumed.status).toBe('completed');
    expect(resumed.errorCode).toBeNull();
    // The spend sums across the resume: 1.50 before, 0.10 for each busy node after.
    expect(resumed.spentUsd).toBeCloseTo(1.7, 10);
    expect(resumed.costUsd).toBeCloseTo(1.7, 10);
    // The continuation's agents got the new cap less what the run had spent.
    const continued = calls().slice(before);
    expect(continued).toHaveLength(2);
    for (const call of continued) expect(budgetArg(call)).toBe('8.5000');
  }, 60_000);

  it('svc run --max-cost caps a run below its workflow, and the CLI prints the warning, the stop and the spend', async () => {
    const env = { SVC_URL: server.url };
    const result = await runSvcInProcess(['run', 'capped-cli', 'go', '--max-cost', '0.5', '--cwd', project], env);
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toMatch(/budget: spent \$0\.45 of the \$0\.50 cap/);
    expect(result.stdout + result.stderr).toMatch(/budget exceeded: spent \$0\.55 of the \$0\.50 cap/);
    const runId = /run_[A-Za-z0-9_-]+/.exec(result.stdout + result.stderr)![0];
    const run = await getRun(server, runId);
    expect(run).toMatchObject({ status: 'failed', errorCode: 'budget_exceeded', maxCostUsd: 0.5 });
    expect(run.spentUsd).toBeCloseTo(0.55, 10);

    const shown = await runSvcInProcess(['runs', 'show', runId], env);
    expect(shown.stdout).toMatch(/budget: {3}spent \$0\.55 of \$0\.50 cap/);

    const refused = await runSvcInProcess(['resume', runId], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/resume it with maxCostUsd \(svc resume --max-cost\)/);
    const bad = await runSvcInProcess(['resume', runId, '--max-cost', 'lots'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--max-cost needs a positive amount of USD/);
  }, 60_000);

  it('marks a run whose agent reports no cost (codex) costPartial, never counting it as 0', async () => {
    const plain = await waitForRun(server, await startRun(server, 'codex-run', { message: 'go', cwd: project }));
    expect(plain).toMatchObject({ status: 'completed', costPartial: true, costUsd: null });
    expect(plain.events.some((e: Json) => e.type === 'budget_warning')).toBe(false);

    // A capped run says its cap cannot see that spend.
    const capped = await waitForRun(server, await startRun(server, 'codex-capped', { message: 'go', cwd: project }));
    expect(capped).toMatchObject({ status: 'completed', costPartial: true, maxCostUsd: 2 });
    expect(capped.events.filter((e: Json) => e.type === 'budget_warning')).toMatchObject([{ reason: 'cost_unknown', capUsd: 2, nodeId: 'one' }]);
  }, 40_000);

  it('refuses a workflow with a cap that is not a positive number', async () => {
    const definition = (cap: unknown) => ({ definition: { name: 'bad-cap', description: 'x', max_cost_usd: cap, nodes: [{ id: 'one', bash: 'echo' }] } });
    const zero = await api(server, 'POST', '/api/workflows/validate', definition(0));
    expect(zero.body.valid).toBe(false);
    expect(zero.body.errors.join('\n')).toMatch(/max_cost_usd.*must be more than 0/);
    const text = await api(server, 'POST', '/api/workflows/validate', definition('2.50'));
    expect(text.body.errors.join('\n')).toMatch(/max_cost_usd: expected a number, got a string/);
    expect((await api(server, 'POST', '/api/workflows/validate', definition(2.5))).body).toEqual({ valid: true });
  });
});
