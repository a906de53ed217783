/**
 * Run events (docs/contract.md, "Events and streams"): one discriminated union that the engine
 * emits, the store persists, SSE streams, and the CLI prints. A consumer switches on `type` and the
 * compiler knows each event's fields; a new event type is added here and nowhere else.
 */

import type { AgentToolCall } from '../../agents/index.js';
import type { SandboxDenial } from '../../sandbox/index.js';
import type { NodeActionKind } from '../../workflows/index.js';
import type { TriggerKind } from './statuses.js';

/** The fields each event type carries beyond the common ones. */
export interface RunEventFields {
  run_created: { trigger: TriggerKind; message: string };
  run_started: Record<never, never>;
  run_resumed: { skipped: string[] };
  /** The worktree setup (`.svc/worktree.yaml`), before the first node: a step named `setup`. */
  setup_started: Record<never, never>;
  setup_output: { stream: 'stdout' | 'stderr' | 'system'; text: string; truncated?: true };
  /** `source`: how the worktree was prepared (`pool`, `cache`, `setup`), once the step got that far. */
  setup_finished: { status: 'completed' | 'failed' | 'cancelled'; durationMs: number; error?: string; source?: 'pool' | 'cache' | 'setup' };
  node_started: { nodeId: string; kind: NodeActionKind };
  /**
   * A prompt node's agent waits for an agent slot (`agent_slot`), a process node for memory
   * (`memory`), or got it (null); docs/contract.md, "Agent slots", "Memory admission".
   */
  node_waiting: { nodeId: string; waitingFor: 'agent_slot' | 'memory' | null };
  /**
   * A running node's memory as last sampled (`rssBytes`) and its peak so far, at most every few
   * seconds per node while it runs (docs/decisions.md, "Memory while a node runs").
   */
  node_memory: { nodeId: string; rssBytes: number; peakRssBytes: number };
  node_output: { nodeId: string; stream: 'stdout' | 'stderr' | 'assistant' | 'system'; text: string; truncated?: true };
  /** A prompt node's agent made a tool call, now resolved (docs/decisions.md, "Tool activity"). */
  agent_tool: { nodeId: string } & AgentToolCall;
  /** A prompt node's agent was refused by its OS sandbox: a path (`fs`) or `host:port` (`net`); docs/decisions.md, "Agents in a sandbox". */
  sandbox_denied: { nodeId: string } & SandboxDenial;
  node_completed: { nodeId: string; durationMs: number | null; costUsd?: number | null; output: string; attempts?: number };
  /** `logTail`: the last lines it printed (the node's `logTail`); `tolerated`: `continue_on_error`, the run goes on as after a success. */
  node_failed: {
    nodeId: string;
    error: string;
    code?: string;
    resumeAt?: string;
    attempts: number;
    durationMs: number | null;
    logTail?: string;
    tolerated?: true;
  };
  node_skipped: { nodeId: string; reason: string };
  run_paused: { nodeId: string; message: string };
  run_approved: { nodeId: string; comment: string };
  run_rejected: { nodeId: string; reason: string };
  /**
   * Only wait nodes remain open: the run holds no slot until one ends (docs/decisions.md, "Waits and
   * signals"). `wakeAt`: when the server continues it on its own; null while it waits only for events.
   */
  run_waiting: { nodes: Array<{ nodeId: string; until?: string; event?: string }>; wakeAt: string | null };
  /** A wait node ended: its time came (`time`), its event was signalled (`signal`), or its event wait timed out (`timeout`). */
  run_woken: { nodeId: string; by: 'time' | 'signal' | 'timeout'; event?: string };
  run_completed: { costUsd: number | null };
  run_failed: { error: string; code?: string; resumeAt?: string };
  /** The server will resume the failed run at `at`, when its usage limit resets (auto-resume.ts). */
  auto_resume_scheduled: { at: string };
  /** The wake-up was called off (`svc cancel` / `svc abandon` of the failed run); the run stays failed. */
  auto_resume_cancelled: { at: string; reason: 'cancel' | 'abandon' };
  /**
   * The run's spend reached 80% of its cap (`threshold`), or an agent of a capped run reported no
   * cost, so the cap cannot see its spend (`cost_unknown`, once per run).
   */
  budget_warning: { reason: 'threshold' | 'cost_unknown'; spentUsd: number; capUsd: number; nodeId: string };
  /** A reported cost took the run's spend over its cap: its agents are stopped and it fails `budget_exceeded`. */
  budget_exceeded: { spentUsd: number; capUsd: number; nodeId: string };
  run_cancelled: { reason?: string };
  run_abandoned: Record<never, never>;
  /** The run's branch was merged (docs/decisions.md, "Landing a run: merge, push, pull request"); the run's status does not change. */
  run_merged: { into: string; commit: string; strategy: 'merge' | 'squash' | 'fast-forward'; alreadyLanded?: boolean };
  /** The landing queue (docs/contract.md, "Landing queue"): the run entered its workspace's queue for `target` at `position`. */
  queue_entered: { workspaceId: string; target: string; position: number };
  /** Its branch was built on `target`'s tip `base` as `commit`, the exact commit that lands if `verify:` (when there is one) passes. */
  queue_verifying: {
    workspaceId: string;
    target: string;
    base: string;
    commit: string;
    verify: boolean;
    /** `queue.parallel`: the runs ahead of it, not landed yet, that its commit was built on. */
    ahead?: string[];
  };
  /** `target` moved to `commit`, the one tested; `alreadyLanded`: its changes were in `target` already. */
  queue_landed: { workspaceId: string; target: string; commit: string; alreadyLanded?: true };
  /**
   * Not landed: it conflicts (`files`) or failed verification (`outputTail`, the end of what verify
   * printed); `reworkRunId`: the rework run started for it (`rework: agent`).
   */
  queue_needs_rework: { workspaceId: string; target: string; reason: string; files?: string[]; outputTail?: string; reworkRunId?: string };
  /** The queue waits, at this run, for `reason` to go away (a dirty checkout of `target`); it resumes by itself. */
  queue_paused: { workspaceId: string; target: string; reason: string };
  /**
   * The run's pull request (docs/decisions.md, "Pull request reactions"): a check failed on its head
   * `commit`; `failingStep` and `excerpt` from the failed job's log; `infrastructure`: the words that
   * make it a failure of the CI, not of the code (reported, no run started).
   */
  pr_check_failed: {
    number: number;
    check: string;
    url: string | null;
    commit: string;
    failingStep: string | null;
    excerpt: string | null;
    infrastructure?: string;
  };
  /** A review asked for changes: the unresolved comments not handled before. */
  pr_changes_requested: { number: number; commit: string; comments: Array<{ id: string; path: string | null; line: number | null }> };
  /**
   * A look saw the pull request change: its `state`, head `commit`, a check (its state or page), or
   * whether gh answered (`lookFailed`: the follow's `lastError`). `checks` counts them by state; the
   * run detail's `pr` has each. The run's page reloads on it.
   */
  pr_updated: {
    number: number;
    state: 'open' | 'merged' | 'closed';
    commit: string | null;
    checks: Partial<Record<'pending' | 'success' | 'failure' | 'cancelled' | 'skipped' | 'neutral', number>>;
    lookFailed: boolean;
  };
  /** A follow-on run (`followOnRunId`) of `workflow` was started for a failed check or a review. */
  reaction_started: { number: number; kind: 'ci' | 'review'; followOnRunId: string; workflow: string; key: string };
  /** The reaction's follow-on run ended: `pushed` its result to the pull request's branch, or `failed`. */
  reaction_finished: {
    number: number;
    kind: 'ci' | 'review';
    followOnRunId: string;
    outcome: 'pushed' | 'failed';
    commit?: string;
    replies?: number;
    replyFailures?: number;
  };
  /** Nothing more starts by itself: a person decides (`reason`). */
  needs_human: { number: number; reason: string };
  /**
   * A person said go on (`POST …/pr/resume`, `svc runs pr <run> --resume`): `needs_human` (`reason`)
   * cleared by `by` (the API's caller: `cli`, `mcp` or `api`); reactions count afresh up to `maxFixCycles`.
   */
  pr_resumed: { number: number; by: string; reason: string; maxFixCycles: number };
  /** The pull request was merged (`merged: true`) or closed; `cleanup` says what became of the worktrees and branches. */
  pr_merged: { number: number; merged: boolean; commit: string | null; cleanup: Array<{ runId: string; removed: boolean; reason?: string }> };
}

export type RunEventType = keyof RunEventFields;

/** What every persisted run event has: `seq` orders one run's events, `pos` orders all streams. */
// A type alias, not an interface: consumers that take loose `{ [key: string]: unknown }` events accept it.
export type RunEventBase<T extends RunEventType = RunEventType> = {
  type: T;
  at: string;
  runId: string;
  seq: number;
  pos: number;
  conversationId: string | null;
  platformId: string;
  workflow: string;
};

export type RunEventOf<T extends RunEventType> = RunEventBase<T> & RunEventFields[T];

/** Every persisted run event, discriminated by `type`. */
export type RunEvent = { [T in RunEventType]: RunEventOf<T> }[RunEventType];

/** Published when a run is deleted, never persisted: the log it would go to is removed with the run. */
export type RunDeletedEvent = {
  type: 'run_deleted';
  at: string;
  runId: string;
  conversationId: string | null;
  platformId: string;
};

/** Anything a run stream carries. */
export type RunStreamEvent = RunEvent | RunDeletedEvent;

/** A followed pull request's events (docs/decisions.md, "Pull request reactions"), on its run's stream. */
const PULL_EVENT_TYPES = [
  'pr_updated',
  'pr_check_failed',
  'pr_changes_requested',
  'reaction_started',
  'reaction_finished',
  'needs_human',
  'pr_resumed',
  'pr_merged',
] as const;

export const RUN_EVENT_TYPES = [
  'run_created',
  'run_started',
  'run_resumed',
  'setup_started',
  'setup_output',
  'setup_finished',
  'node_started',
  'node_waiting',
  'node_memory',
  'node_output',
  'agent_tool',
  'sandbox_denied',
  'node_completed',
  'node_failed',
  'node_skipped',
  'run_paused',
  'run_approved',
  'run_rejected',
  'run_waiting',
  'run_woken',
  'run_completed',
  'run_failed',
  'auto_resume_scheduled',
  'auto_resume_cancelled',
  'run_cancelled',
  'run_abandoned',
  'run_merged',
  'queue_entered',
  'queue_verifying',
  'queue_landed',
  'queue_needs_rework',
  'queue_paused',
  ...PULL_EVENT_TYPES,
  'budget_warning',
  'budget_exceeded',
] as const satisfies readonly RunEventType[];

/**
 * Events that whichever process lands a run emits on it once it has settled (a merge, the landing
 * queue's): on a shared database another server may emit the next one, so the run's numbering is
 * read again after each, as after a settling event (runs/storage/run-store.ts).
 */
export const LANDING_EVENT_TYPES = [
  'run_merged',
  'queue_entered',
  'queue_verifying',
  'queue_landed',
  'queue_needs_rework',
  'queue_paused',
  // A followed pull request's events come from whichever server follows it (pulls/).
  ...PULL_EVENT_TYPES,
] as const;

/** Events after which a run is settled (terminal, or paused at a gate), or gone. */
export const SETTLING_EVENT_TYPES = ['run_completed', 'run_failed', 'run_cancelled', 'run_abandoned', 'run_paused', 'run_deleted'] as const;
export type SettlingEventType = (typeof SETTLING_EVENT_TYPES)[number];

export const isSettlingEvent = (event: { type: string }): event is Extract<RunStreamEvent, { type: SettlingEventType }> =>
  (SETTLING_EVENT_TYPES as readonly string[]).includes(event.type);
