import type { EngineDeps } from './engine-deps.js';
import type { ExecutorDeps } from '../executor/executor.js';
import type { RunStore } from '../storage/run-store.js';
import type { RunRecord } from '../model/types.js';
import { tracedRun } from '../executor/trace-facts.js';
import type { AssistantChoice } from '../executor/nodes/types.js';
import type { AssistantLaunch } from '../../config/index.js';

/** Nodes of one run executing at once; more wait for a free place, in definition order. */
export const RUN_PARALLELISM = 8;

/**
 * With a shared database, a run on a workspace executes in a worktree the executing server makes
 * in its own home, from its own clone (docs/contract.md, "Workspaces"); a run that has completed
 * nodes (resumed, approved) keeps the worktree holding their changes, or fails (`worktree_gone`):
 * the run is bound to that home, so only its servers claim it (docs/scaling.md). One server alone
 * placed it at start. Resolves to what changes on the run's record: its cwd, and a new worktree's
 * branch and base commit.
 */
export async function placeAtLaunch(deps: Pick<EngineDeps, 'worktrees' | 'coordination'>, run: RunRecord): Promise<Partial<RunRecord>> {
  if (!deps.coordination.placesRunsAtLaunch || !run.workspaceId) return {};
  const resumed = Object.values(run.nodes).some((state) => state.status === 'completed');
  // A follow-on run's base commit is on its record from the start: the earlier run's head (run-start.ts `start`).
  const from = run.fromRunId && run.baseCommit ? { from: run.baseCommit } : {};
  const place = resumed
    ? await deps.worktrees.resume(run.workspaceId, run.id, { here: true })
    : await deps.worktrees.place(run.workspaceId, run.id, { here: true, ...from });
  // Its worktree is in this home now: an approval or a resume continues it here, on a server of this home.
  if (place.worktree) await deps.coordination.runs.bindHome(run.id);
  return {
    ...(place.cwd !== run.cwd ? { cwd: place.cwd } : {}),
    ...(place.branch ? { branch: place.branch } : {}),
    ...(place.baseCommit && !run.baseCommit ? { baseCommit: place.baseCommit, headCommit: place.baseCommit } : {}),
  };
}

/** What the executor gets to run this run: the engine's agents, limits and logger, its workspace's env and its `$SVC_PORT`. */
export async function executorDeps(deps: EngineDeps, runs: RunStore, run: RunRecord, port: number): Promise<ExecutorDeps> {
  return {
    port,
    runs,
    logger: deps.logger,
    parallelism: deps.limits.runParallelism ?? RUN_PARALLELISM,
    prompt: {
      agents: deps.agents,
      assistants: run.trigger === 'test' ? fixtureAssistants(deps.assistants) : deps.assistants,
      loadCommand: (name, cwd) => deps.resolver.loadCommand(name, cwd),
      firstEventTimeoutMs: deps.limits.agentFirstEventTimeoutMs,
      idleTimeoutMs: deps.limits.agentIdleTimeoutMs,
      usageLimitRetryMs: deps.limits.usageLimitRetryMs,
      sandbox: { mode: deps.limits.sandbox?.mode ?? 'on', svcHome: deps.limits.sandbox?.svcHome, bash: deps.limits.sandbox?.bash ?? false },
      logger: deps.logger,
      assertAgentAllowed: (workspaceId, cwd) => deps.worktrees.assertAgentAllowed(workspaceId, cwd),
    },
    workspaceEnv: run.workspaceId ? await deps.worktrees.env(run.workspaceId) : {},
    envAllow: deps.limits.agentEnvAllow ?? [],
    fenceRounds: deps.coordination.runsMayBeTakenOver,
    ...(deps.memory ? { memory: deps.memory } : {}),
    // Its span in this process: the one a paused run kept open here, or a new one in its trace.
    ...(deps.tracing ? { trace: deps.tracing.run(tracedRun(run)) } : {}),
    // A run in a worktree svc made, never one in a directory of the user's, gets a commit per node.
    ...(run.branch ? { worktree: deps.worktrees.commits } : {}),
  };
}

/**
 * A workflow test's assistants (docs/decisions.md, "Workflow tests"): its fixture answers every
 * agent node, so an assistant the server's configuration lacks — an acp one the test's author
 * named, and the machine running the test has not set up — is no failure: it starts no command, and
 * has no model, endpoint or price of its own.
 */
function fixtureAssistants(assistants: AssistantChoice): AssistantChoice {
  const orElse = async <T>(ask: (() => Promise<T>) | undefined, otherwise: T): Promise<T> => {
    try {
      return ask ? await ask() : otherwise;
    } catch (error) {
      if ((error as { code?: string }).code === 'unknown_assistant') return otherwise;
      throw error;
    }
  };
  const unconfigured = (name: string): AssistantLaunch => ({ kind: 'acp', name, command: [], env: {}, preset: null, apiKeyEnv: null });
  return {
    defaultAssistant: () => assistants.defaultAssistant(),
    modelOf: (name) => orElse(() => assistants.modelOf(name), null),
    launchOf: (name) => orElse(() => assistants.launchOf(name), unconfigured(name)),
    endpointOf: (name) => orElse(assistants.endpointOf && (() => assistants.endpointOf!(name)), null),
    priceOf: (name) => orElse(assistants.priceOf && (() => assistants.priceOf!(name)), null),
  };
}
