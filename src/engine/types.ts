/** Run states (CONTRACT §5). Terminal ones never change again, except by deletion. */
export const RUN_STATUSES = ['pending', 'running', 'paused', 'completed', 'failed', 'cancelled', 'abandoned'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const TERMINAL_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled', 'abandoned'];
export const isTerminal = (status: RunStatus) => TERMINAL_STATUSES.includes(status);

export const NODE_STATUSES = ['pending', 'running', 'completed', 'failed', 'skipped', 'waiting_approval', 'cancelled'] as const;
export type NodeStatus = (typeof NODE_STATUSES)[number];
/** A node that will not change again in this pass of the run. */
export const isNodeDone = (status: NodeStatus) => status === 'completed' || status === 'failed' || status === 'skipped' || status === 'cancelled';

export type TriggerKind = 'api' | 'cli' | 'webhook';

export interface NodeState {
  status: NodeStatus;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  costUsd: number | null;
  /** Capped at 64 KiB; the whole output is in the run's artifacts (`<node>.out`). */
  output: string | null;
  outputTruncated?: boolean;
  error: string | null;
  attempts: number;
  tokens?: { input: number; output: number } | null;
  /** Why a node was skipped (trigger rule, `when`). */
  reason?: string;
  model?: string | null;
}

export interface RunRecord {
  id: string;
  workflow: string;
  status: RunStatus;
  message: string;
  conversationId: string | null;
  /** The run's worker conversation (`/api/workflows/runs/by-worker/{platformId}`). */
  platformId: string;
  workspaceId: string | null;
  cwd: string;
  trigger: TriggerKind;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** Last change of any kind; lets stream replay find runs with recent events. */
  updatedAt: string;
  error: string | null;
  costUsd: number | null;
  nodes: Record<string, NodeState>;
  /** Marked by resume: the next start of this workflow with this conversationId continues the run. */
  resumePending: boolean;
  /** Reason given when a paused run was rejected. */
  rejectReason?: string | null;
  /** Extra variables given to nodes (webhook runs: TRIGGER_TYPE, TRIGGER_PAYLOAD, …). */
  variables: Record<string, string>;
  /** The definition as written when the run started (or resumed): a later edit never changes a running run. */
  definition: unknown;
}

/** Persisted run events are the discriminated union of `events.ts`. */
export type { RunEvent } from './events.js';
