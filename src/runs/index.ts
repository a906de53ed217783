/**
 * Runs: the run model (states, lifecycle, events, versions), their storage, the engine that starts
 * and drives them (`RunEngine`, the one door front ends and other domains call), the executor and
 * its node runners, timed wake-ups, and workflow tests. The rest of svc uses runs only through
 * this file (docs/ARCHITECTURE.md, "Rooms and front doors").
 */
export { RunEngine } from './control/run-engine.js';
// The ports the engine is opened with, for the domains that implement them (workspaces, conversations).
export type { RunConversations, RunWorktree, WorktreePreparation, WorktreeProvider } from './control/engine-deps.js';
export type { RunRecord } from './model/types.js';
export { changeRange } from './model/change-range.js';
export { RUN_EVENT_TYPES, type RunStreamEvent, isSettlingEvent } from './model/events.js';
export { type RunView, toRunView } from './model/run-view.js';
export {
  ResumeRunBodySchema,
  RunDetailSchema,
  RunStatusListSchema,
  RunStatusSchema,
  RunViewSchema,
  SignalBodySchema,
  StartRunBodySchema,
} from './model/schemas.js';
export type { RunStatus } from './model/statuses.js';
export { RUN_STATUSES, TERMINAL_STATUSES, isTerminal } from './model/types.js';
export type { WorkflowResolver } from './model/workflow-resolver.js';
export { openFileRunRepository } from './storage/run-repository.js';
export type { RunStore } from './storage/run-store.js';
export { type RunSummary, summarizeRun } from './storage/run-summaries.js';
export { type WorkflowTestResult, WorkflowTestResultSchema, runWorkflowTest } from './workflow-tests/workflow-test.js';

// Only with SVC_DATABASE_URL: loaded on first use, so the file store never loads pg (docs/decisions.md, "Footprint").
export const loadPostgresRuns = () => import('./storage/postgres-run-repository.js');
export const loadPostgresRunSummaries = () => import('./storage/postgres-run-summaries.js');
