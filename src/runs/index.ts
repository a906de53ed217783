/**
 * Runs: the run model (states, lifecycle, events, versions), their storage, the engine that starts
 * and drives them (`RunEngine`, the one door front ends and other domains call), the executor and
 * its node runners, timed wake-ups, and workflow tests. The rest of svc uses runs only through
 * this file (docs/ARCHITECTURE.md, "Rooms and front doors").
 */

// control/: the engine, and the ports it is opened with, for the domains that implement them
// (workspaces' run worktrees, the conversations' worker conversations).
export { RunEngine } from './control/run-engine.js';
export type { PooledPreparation, RunConversations, RunWorktree, SetupCacheHandle, WorktreePreparation, WorktreeProvider } from './control/engine-deps.js';
// A worktree's `setup:` (restored from the cache or run): a run's setup step, and a workspace's pool refill.
export { restoreOrRunSetup, type SetupScript } from './control/setup-script.js';

// model/: what a run is, and what the API shows of it.
export type { RunRecord } from './model/types.js';
export type { RunStatus } from './model/statuses.js';
export { RUN_STATUSES, TERMINAL_STATUSES, isTerminal } from './model/types.js';
export { RUN_EVENT_TYPES, type RunEventFields, type RunStreamEvent, isSettlingEvent } from './model/events.js';
export { type RunView, toRunView } from './model/run-view.js';
export { changeRange } from './model/change-range.js';
export type { WorkflowResolver } from './model/workflow-resolver.js';
export {
  NodeLogPageSchema,
  ResumeRunBodySchema,
  RunDetailSchema,
  RunStatusListSchema,
  RunStatusSchema,
  RunViewSchema,
  SignalBodySchema,
  StartRunBodySchema,
} from './model/schemas.js';

// storage/: the file store's runs (a store migration copies them), the store the engine keeps,
// and the summaries benchmarks read.
export { openFileRunRepository } from './storage/run-repository.js';
export type { RunStore } from './storage/run-store.js';
export { type RunSummary, summarizeRun } from './storage/run-summaries.js';

// executor/: a repository's `verify:` script run as a bash node of a run (the landing queue).
export { runVerification, type VerificationOutcome, type VerificationRequest } from './executor/verification.js';
export type { SandboxDeps } from './executor/nodes/types.js';

// workflow-tests/: a workflow run against a fixture instead of agents.
export { type WorkflowTestResult, WorkflowTestResultSchema, runWorkflowTest } from './workflow-tests/workflow-test.js';

// Only with SVC_DATABASE_URL: loaded on first use, so the file store never loads pg (docs/decisions.md, "Footprint").
export const loadPostgresRuns = () => import('./storage/postgres-run-repository.js');
export const loadPostgresRunSummaries = () => import('./storage/postgres-run-summaries.js');
