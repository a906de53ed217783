/**
 * What the conversations domain asks of the rest of svc, and nothing more: the composition root
 * (app/context.ts) wires the engine, the catalog, the workspaces and the assistant configuration in.
 */

import type { Agent, AgentEndpoint } from '../agents/index.js';
import type { Permissions } from '../shared/permissions.js';
import type { AgentKind, AssistantLaunch, AssistantName, TokenPrice } from '../config/index.js';
import type { AnsweringCoordination } from '../coordination/index.js';
import type { MemoryAdmission } from '../processes/index.js';
import type { Logger } from '../shared/logger.js';
import type { ConversationEventLog } from './events.js';
import type { ConversationRepositories } from './repository.js';

export interface ConversationWorkspaces {
  /** The full id of the workspace `ref` names (an id, a name or a unique prefix); rejects with `workspace_not_found` or `ambiguous_workspace`. */
  idOf(ref: string): Promise<string>;
  /** The workspace's source checkout, where its conversations' agents run. */
  cwdOf(workspaceId: string): Promise<string>;
  env(workspaceId: string): Promise<Record<string, string>>;
  /** Rejects (`env_leak_blocked`) when an agent must not start in the workspace. */
  assertAgentAllowed(workspaceId: string): Promise<void>;
}

export interface ConversationRunSummary {
  id: string;
  workflow: string;
  status: string;
  createdAt: string;
  error: string | null;
}

export interface ConversationRuns {
  /** Starts a workflow linked to the conversation (rejects with `workflow_not_found`). */
  start(input: { workflow: string; message: string; conversationId: string }): Promise<{ id: string; status: string }>;
  /** Runs linked to a conversation, newest first. */
  list(conversationId: string, limit: number): Promise<ConversationRunSummary[]>;
  /** The names of the workflows that can be started, with their descriptions. */
  workflows(): Promise<Array<{ name: string; description?: string | undefined }>>;
}

export interface ConversationAssistants {
  defaultAssistant(): Promise<AssistantName>;
  modelOf(name: AssistantName): Promise<string | null>;
  endpointOf(name: AssistantName): Promise<AgentEndpoint | null>;
  /** How its agent starts (claude, codex, an acp command); rejects with `unknown_assistant`. */
  launchOf(name: AssistantName): Promise<AssistantLaunch>;
  /** What the assistant may do in a conversation that sets nothing itself. */
  permissionsOf(name: AssistantName): Promise<Permissions>;
  /** What the assistant's tokens cost, to price a reply whose agent reports no cost (config/token-price.ts); null when not configured. */
  priceOf?(name: AssistantName): Promise<TokenPrice | null>;
  /** The assistant's `maxMemory` in bytes: a reply whose agent's processes pass it is stopped (`memory_exceeded`); null: no limit. */
  maxMemoryOf?(name: AssistantName): Promise<number | null>;
}

/** A settling run event as the orchestrator hears it from the bus. */
export interface RunOutcomeEvent {
  type: string;
  runId: string;
  conversationId: string | null;
  platformId: string;
  workflow: string;
  error?: string;
  nodeId?: string;
  message?: string;
  costUsd?: number | null;
}

export interface ConversationDeps {
  repositories: ConversationRepositories;
  events: ConversationEventLog;
  logger: Logger;
  /** The agents by how they are driven; an acp assistant's request says which command. */
  agents: Record<AgentKind, Agent>;
  assistants: ConversationAssistants;
  workspaces: ConversationWorkspaces;
  runs: ConversationRuns;
  /** The server's environment, which agents inherit (less nested-agent markers). */
  env: NodeJS.ProcessEnv;
  /** Where an agent of a conversation without a workspace runs. */
  cwd: string;
  /** `agentEnvAllow`: `SVC_AGENT_ENV_ALLOW`, the server's variables an agent gets beyond the base set. */
  limits: {
    maxConcurrentConversations: number;
    agentFirstEventTimeoutMs: number;
    agentEnvAllow?: readonly string[];
    /** `SVC_SANDBOX` and svc's home: a reply's agent at `read` or `edit` runs in its sandbox, as a node's (docs/decisions.md, "Agents in a sandbox"). */
    sandbox?: { mode: 'on' | 'off'; svcHome: string };
  };
  /**
   * Which process answers each conversation (coordination/types.ts): this one alone; one of the
   * servers sharing a database; or, for a process that answers nothing (the CLI's offline mode on
   * a database), none here: a message sent here stays pending and the servers are told at once.
   */
  answering: AnsweringCoordination;
  /** The server's memory budget, shared with the runs' nodes: a reply's agent is admitted to it once it holds its agent slot; absent: not held for memory. */
  memory?: MemoryAdmission;
}
