/**
 * The domain's shapes as the API answers them, re-exported for the front ends: the CLI imports
 * them from here, never from the engine, catalog or store. Types only, except the few constants
 * a front end switches on (run states, which events settle a run).
 */

import type { CommandListing, WorkflowDocument, WorkflowListing, SavedWorkflowDocument, WorkflowSummary, CommandEntry } from '../catalog/index.js';
import type { AssistantsConfig, AssistantsPatch, AssistantsView, ConfigView } from '../config/index.js';
import type { z } from 'zod';
import type { NodeLogPageSchema, RunView, StartRunBodySchema, WorkflowTestResult } from '../runs/index.js';
import type { Benchmark, Comparison, DashboardRuns, VersionBenchmark } from '../benchmarks/index.js';
import type { RunEvent, RunStreamEvent } from '../runs/model/events.js';
import type { healthReport, updateCheck } from '../system/index.js';
import type { EnvironmentView, Workspace, WorkspaceDetail, CleanupResult, KeptEnvironment, DiffFile, RunDiff, SetupCacheView } from '../workspaces/index.js';
import type { ConflictEntry, MergeStrategy, WorkspaceConflicts } from '../landing/index.js';
import type { QueueEntry, QueueState, QueueView } from '../queue/index.js';
import type { PullView } from '../pulls/index.js';
import type { DeliveryOutcome, DeliveryView, TriggerRegistrationView, WebhookTriggerView } from '../webhooks/index.js';
import type { ScheduleView } from '../schedules/index.js';
import type { Conversation, ConversationEvent, Message } from '../conversations/index.js';

import type { RunStatus } from '../runs/model/statuses.js';
export { RUN_STATUSES, type RunStatus, type TriggerKind } from '../runs/model/statuses.js';
export { PERMISSIONS, type Permissions } from '../shared/permissions.js';
export { isSettlingEvent, type RunEvent, type RunEventOf, type RunEventType, type RunStreamEvent } from '../runs/model/events.js';
export type {
  CleanupResult,
  ConflictEntry,
  DiffFile,
  EnvironmentView,
  KeptEnvironment,
  MergeStrategy,
  RunDiff,
  SetupCacheView,
  Workspace,
  WorkspaceConflicts,
  WorkspaceDetail,
};

/** `POST …/merge` (docs/decisions.md, "Landing a run: merge, push, pull request"). */
export interface MergeInput {
  into?: string;
  strategy?: MergeStrategy;
  message?: string;
}
export interface MergeAnswer {
  merged: true;
  into: string;
  commit: string;
  strategy: MergeStrategy;
  /** The branch was in `into` already (landed by hand): nothing changed; the run records it as landed. */
  alreadyLanded: boolean;
}
export type { QueueEntry, QueueState, QueueView };
/** `POST …/merge {"queue": true}` (docs/contract.md, "Landing queue"). */
export interface EnqueueInput {
  into?: string;
  strategy?: 'merge' | 'squash';
}
export interface QueuedAnswer {
  queued: true;
  entry: QueueEntry;
}
export interface PullRequestInput {
  title?: string;
  body?: string;
  base?: string;
  draft?: boolean;
}
export type { DeliveryOutcome, DeliveryView, ScheduleView, TriggerRegistrationView, WebhookTriggerView };
export type { Benchmark, Comparison, DashboardRuns, VersionBenchmark, WorkflowTestResult };
/** `POST /api/workflows/{name}/test`: the fixture as YAML text, and its file name for `file:line:col`. */
export interface WorkflowTestInput {
  fixture?: string;
  fixtureName?: string;
  cwd?: string;
  keep?: boolean;
}
export type {
  AssistantsConfig,
  AssistantsView,
  AssistantsPatch,
  CommandEntry,
  CommandListing,
  ConfigView,
  RunView,
  SavedWorkflowDocument,
  WorkflowDocument,
  WorkflowListing,
  WorkflowSummary,
};

/** `GET /api/workflows/runs/{id}`: the run with its trigger variables and events. */
/** A run's followed pull request (`POST …/pr/follow`, `…/pr/resume`, and the run detail's `pr`). */
export type { PullView };

export type RunDetail = RunView & {
  variables?: Record<string, string>;
  events: RunEvent[];
  /** Its pull request as svc follows it (docs/decisions.md, "Pull request reactions"); `needsHuman` when svc stopped reacting by itself. */
  pr?: PullView;
  needsHuman?: true;
  needsHumanReason?: string;
};
export type Health = Awaited<ReturnType<typeof healthReport>>;
export type UpdateCheck = ReturnType<typeof updateCheck>;
/** What `runs.start` takes: the route's body schema, as the caller writes it. */
export type StartRunInput = z.input<typeof StartRunBodySchema>;
/** `GET …/nodes/{nodeId}/log`: a page of a node's log and its node's state. */
export type NodeLogPage = z.infer<typeof NodeLogPageSchema>;
/** What `runs.start` answers (202): the run, and where it runs — a workspace's worktree on its branch, or in place in `cwd`. */
export interface StartedRun {
  runId: string;
  status: RunStatus;
  workspaceId: string | null;
  cwd: string;
  branch: string | null;
}
export interface WorkspaceList {
  workspaces: Workspace[];
  total: number;
}
export interface RunList {
  runs: RunView[];
  total: number;
}
/** Filters of `GET /api/workflows/runs`, as the user typed them: the route validates them. */
export interface RunListQuery {
  status?: string;
  workflow?: string;
  conversationId?: string;
  /** The follow-on runs of this run. */
  fromRunId?: string;
  /** The runs of this version of their workflow. */
  definitionHash?: string;
  /** `<n>h|d|w` or an ISO date, as the dashboard query takes them. */
  since?: string;
  until?: string;
  limit?: string | number;
  offset?: string | number;
}
/** `GET /api/runs/benchmark`, as the user typed it: the route validates it. */
export interface BenchmarkQuery {
  workflow: string;
  since?: string;
  limit?: string | number;
}
/** `GET /api/dashboard/runs`. */
export interface DashboardQuery {
  status?: string;
  workflow?: string;
  workspace_id?: string;
  definitionHash?: string;
  since?: string;
  until?: string;
  limit?: string | number;
  offset?: string | number;
}
export type { Conversation, ConversationEvent, Message };
/** Anything a stream carries: run events and conversation events (messages, reply deltas, errors). */
export type StreamEvent = RunStreamEvent | ConversationEvent;
export interface ConversationList {
  conversations: Conversation[];
  total: number;
}
export interface MessagePage {
  /** Oldest first. */
  messages: Message[];
  /** The `before` of the next (older) page; null when this one holds the oldest. */
  next_before: string | null;
}
export interface ConversationListQuery {
  workspace_id?: string;
  include_deleted?: boolean;
  limit?: number;
  offset?: number;
}
/** Filters of `GET /api/webhooks/deliveries`. */
export interface DeliveryQuery {
  slug?: string;
  outcome?: string;
  limit?: number;
}
