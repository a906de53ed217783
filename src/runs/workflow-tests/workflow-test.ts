import * as z from 'zod';
import { DomainError } from '../../shared/errors.js';
import type { WorkflowDefinition } from '../../workflows/index.js';
import type { RunEngine } from '../control/run-engine.js';
import { waitingGate } from '../control/finish.js';
import { fixtureAgents } from './fixture-agents.js';
import { NodeStatusSchema, RunStatusSchema } from '../model/schemas.js';
import { parseFixture, type TestFixture } from './test-fixture.js';
import { isTerminal, type RunRecord } from '../model/types.js';

/**
 * A workflow test (docs/decisions.md, "Workflow tests"): the workflow runs for real — bash nodes,
 * conditions, retries, commits — except that its agents answer from the fixture and its gates are
 * decided by it; then the fixture's expectations are checked. The run is marked `trigger: "test"`
 * (kept out of benchmarks) and deleted afterwards unless kept.
 */

export const WorkflowTestResultSchema = z.object({
  runId: z.string(),
  status: RunStatusSchema.describe("the run's final state"),
  passed: z.boolean().describe('every expectation held'),
  failures: z.array(z.string()).describe('each broken expectation, one sentence each, naming its node'),
  kept: z.boolean().describe('the run was kept (`keep`); otherwise it is deleted'),
  nodes: z.record(z.string(), z.object({ status: NodeStatusSchema, output: z.string().nullable(), error: z.string().nullable() })),
});
export type WorkflowTestResult = z.infer<typeof WorkflowTestResultSchema>;

export interface WorkflowTestRequest {
  workflow: string;
  /** The fixture's YAML text; undefined or empty: no answers, no decisions, no expectations. */
  fixture?: string;
  /** The fixture's file name, for `file:line:col` in its errors. */
  fixtureName?: string;
  cwd?: string;
  keep?: boolean;
}

export interface WorkflowTestDeps {
  engine: RunEngine;
  /** The workflow as a run of it would find it (404 `workflow_not_found`). */
  findWorkflow(name: string, cwd: string | undefined): Promise<WorkflowDefinition>;
}

export async function runWorkflowTest({ engine, findWorkflow }: WorkflowTestDeps, request: WorkflowTestRequest): Promise<WorkflowTestResult> {
  const workflow = await findWorkflow(request.workflow, request.cwd);
  const fixture = parseFixture(request.fixture, request.fixtureName ?? 'fixture', workflow);
  // With several servers any of them may claim a pending run, and only this process holds the fixture's agents.
  if (engine.serverId !== undefined) {
    throw new DomainError('workflow_test_unavailable', 'Workflow tests run on a single server; with a shared database, run `svc workflow test` offline.');
  }
  const started = await engine.start({
    workflow: request.workflow,
    message: fixture.message ?? '',
    conversationId: null,
    ...(request.cwd !== undefined ? { cwd: request.cwd } : {}),
    trigger: 'test',
    agents: fixtureAgents(fixture.nodes ?? {}),
  });
  const failures: string[] = [];
  const run = await driveToEnd(engine, started.id, fixture, failures);
  failures.push(...brokenExpectations(run, fixture));
  if (!request.keep) await engine.delete(run.id);
  return {
    runId: run.id,
    status: run.status,
    passed: failures.length === 0,
    failures,
    kept: Boolean(request.keep),
    nodes: Object.fromEntries(Object.entries(run.nodes).map(([id, s]) => [id, { status: s.status, output: s.output, error: s.error }])),
  };
}

/** Waits for the run to end, deciding each gate it pauses at as the fixture says (a gate it does not name is rejected, and that is a failure). */
async function driveToEnd(engine: RunEngine, runId: string, fixture: TestFixture, failures: string[]): Promise<RunRecord> {
  for (;;) {
    const run = await engine.waitUntilSettled(runId);
    if (isTerminal(run.status)) return run;
    const [gateId] = waitingGate(run);
    const decision = fixture.approvals?.[gateId];
    if (decision === 'approve') await engine.approve(runId, 'approved by the test fixture');
    else {
      if (decision === undefined)
        failures.push(`approval '${gateId}': the run paused there and the fixture does not decide it (approvals.${gateId}); rejected`);
      await engine.reject(runId, decision === 'reject' ? 'rejected by the test fixture' : 'not decided by the test fixture');
    }
  }
}

/** Each expectation that does not hold, naming its node; without `expect`, the run must complete. */
export function brokenExpectations(run: RunRecord, fixture: TestFixture): string[] {
  const expected = fixture.expect;
  if (!expected) return run.status === 'completed' ? [] : [`run: ended ${run.status}, expected completed${run.error ? ` (${run.error})` : ''}`];
  const broken: string[] = [];
  for (const status of ['completed', 'failed', 'skipped'] as const) {
    for (const id of expected[status] ?? []) {
      const state = run.nodes[id];
      if (state?.status === status) continue;
      const why = state?.error ?? state?.reason;
      broken.push(`node '${id}': expected ${status}, was ${state?.status ?? 'not in the run'}${why ? ` (${why})` : ''}`);
    }
  }
  for (const [id, text] of Object.entries(expected.contains ?? {})) {
    const output = run.nodes[id]?.output ?? null;
    if (output === null || !output.includes(text))
      broken.push(`node '${id}': output does not contain ${JSON.stringify(text)}${output === null ? ' (no output)' : ''}`);
  }
  return broken;
}
