import type { Agent } from '../../agents/index.js';
import type { AgentKind } from '../../config/index.js';
import type { Permissions } from '../../shared/permissions.js';
import type { TriggerKind } from './types.js';

/** What starting a run asks for: from the API, the CLI, a webhook, a schedule, a resume or a workflow test. */
export interface StartRunRequest {
  workflow: string;
  message: string;
  conversationId?: string | null;
  cwd?: string;
  trigger: TriggerKind;
  /** Who chose the start's values when not the local user: an agent through `svc mcp`, or another machine (docs/decisions.md, "Bash nodes in a sandbox"). */
  outside?: 'mcp' | 'remote';
  /** Extra variables (webhook runs). */
  variables?: Record<string, string>;
  workspaceId?: string | null;
  /**
   * Run in `cwd` itself even when a registered workspace's checkout holds it (`svc run --in-place`):
   * no worktree, no branch. Excludes `workspaceId`.
   */
  inPlace?: boolean;
  /** The start's spend cap in USD; with the workflow's `max_cost_usd` too, the smaller wins. */
  maxCostUsd?: number;
  /** The run's own permissions: each agent node at most this (permission-cap.ts). */
  permissions?: Permissions;
  /**
   * A cap inherited from another run (a pull request's follow-on run carries its original run's):
   * the run's permissions become the lower of this and its workflow's, never a refusal.
   */
  permissionsAtMost?: Permissions;
  /** The run's id, chosen by a trigger that records it before the run exists (webhook dedupe). */
  runId?: string;
  /** A follow-on run: its worktree branches from this run's head commit (an id or a unique prefix). */
  fromRunId?: string;
  /** A webhook delivery's W3C `traceparent` (already checked): the run's trace continues it (docs/decisions.md, "Traces"). */
  traceparent?: string;
  /** This run's agents instead of the engine's (a workflow test's answer from its fixture); kept in this process only. */
  agents?: Record<AgentKind, Agent>;
}
