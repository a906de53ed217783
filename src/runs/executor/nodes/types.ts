import type { Agent, AgentEndpoint, AgentToolCall } from '../../../agents/index.js';
import type { SandboxDenial } from '../../../sandbox/index.js';
import type { AgentKind, AssistantLaunch, AssistantName, TokenPrice } from '../../../config/index.js';
import type { Logger } from '../../../shared/logger.js';
import type { WorkflowDefinition, WorkflowNode } from '../../../workflows/index.js';
import type { RunRecord } from '../../model/types.js';

/** What a node runner gets: the node, the run, upstream outputs, and where to stream output. */
export interface NodeRunContext {
  run: RunRecord;
  workflow: WorkflowDefinition;
  node: WorkflowNode;
  /** Outputs of completed nodes, full length. */
  outputs: Readonly<Record<string, string>>;
  /** The run variables of docs/contract.md, "Workflow files" (ARGUMENTS, RUN_ID, …) plus trigger variables. */
  variables: Readonly<Record<string, string>>;
  /** The run's artifacts directory (`$ARTIFACTS_DIR`): readable, and writable at `edit`, in an agent's sandbox. */
  artifactsDir: string;
  /** The workspace's env values (empty outside a workspace); run variables win over them. */
  env: Readonly<Record<string, string>>;
  /** The server's variables allowed beyond the base set: the server's `SVC_AGENT_ENV_ALLOW`, the workflow's and the node's `env.allow`. */
  envAllow: readonly string[];
  /** The names a process with a withheld environment got beyond the base set (never called for a bash node that inherits). */
  onEnvGiven(names: string[]): void;
  signal: AbortSignal;
  onOutput(stream: 'stdout' | 'stderr' | 'assistant', text: string): void;
  /** An agent's tool call, once resolved (prompt and command nodes). */
  onTool(call: AgentToolCall): void;
  /** A refusal of the node's sandbox (an agent's, or a sandboxed bash node's). */
  onSandboxDenied(denial: SandboxDenial): void;
  /** The node's sandbox is weaker than its policy, and why (`sandboxWarning` on its record). */
  onSandboxWarning(warning: string): void;
  /** The node's agent waits for an agent slot (true) or got one (false). */
  onSlotWait(waiting: boolean): void;
  /** Waits for the node's place in the server's memory budget: an agent's once it holds its slot (agents/agent-slots.ts); rejects when the run is stopped meanwhile. */
  admitMemory(): Promise<void>;
  /** Called with the leader of each process group the node starts, and how that group is stopped (its memory limit uses it). */
  onProcess(pid: number, stop: () => Promise<void>): void;
  /**
   * The node span's W3C trace context when the run is traced: every process the node starts gets it
   * as `TRACEPARENT`, so a script or an agent that honours it joins the run's trace (docs/decisions.md, "Traces").
   */
  traceparent?: string | undefined;
}

/** Which assistant and model a prompt node uses when it names none (the assistants configuration). */
export interface AssistantChoice {
  defaultAssistant(): Promise<AssistantName>;
  modelOf(name: AssistantName): Promise<string | null>;
  /** How its agent starts (claude, codex, an acp command); rejects with `unknown_assistant`. */
  launchOf(name: AssistantName): Promise<AssistantLaunch>;
  /** The assistant's model endpoint, if one is configured (docs/contract.md, "Model endpoints"). */
  endpointOf?(name: AssistantName): Promise<AgentEndpoint | null>;
  /** What the assistant's tokens cost, to price a call that reports no cost (config/token-price.ts); null when not configured. */
  priceOf?(name: AssistantName): Promise<TokenPrice | null>;
}

/**
 * `SVC_SANDBOX`, svc's home (denied to a sandboxed process; no home: only the user's secrets are
 * denied), and `SVC_SANDBOX_BASH` (a bash node's default).
 */
export interface SandboxDeps {
  mode: 'on' | 'off';
  svcHome: string | undefined;
  bash: boolean;
}

/** What `prompt` and `command` nodes need beyond the node itself (bash nodes need none of it). */
export interface PromptDeps {
  /** The agents by how they are driven; an acp assistant's request says which command. */
  agents: Record<AgentKind, Agent>;
  assistants: AssistantChoice;
  loadCommand(name: string, cwd: string): Promise<string | undefined>;
  /** How long an agent may stay silent after it starts. */
  firstEventTimeoutMs: number;
  /** How long an agent may print nothing when its node sets no `idle_timeout`. */
  idleTimeoutMs: number;
  /** A usage limit that names no reset time: the node's `resumeAt` is this long after it. */
  usageLimitRetryMs: number;
  sandbox: SandboxDeps;
  logger: Logger;
  /** Rejects when an agent must not start in this workspace (the env-leak gate). */
  assertAgentAllowed(workspaceId: string, cwd: string): Promise<void>;
}

export interface NodeOutcome {
  output: string;
  costUsd?: number | null;
  tokens?: { input: number; output: number } | null;
  model?: string | null;
  /** A prompt or command node: the assistant it called and the model it asked for (null: the agent's default), for its trace. */
  agent?: { assistant: AssistantName; requestModel: string | null };
}

/** A node attempt that failed; `code` is a stable reason (`timeout`, `exit_code`, an agent code…). */
export class NodeFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** What the failed attempt's agent reported spending; null when none or unknown. */
    readonly costUsd: number | null = null,
    /** `usage_limit`: when the agent's limit resets (ISO). */
    readonly resumeAt: string | null = null,
    /** A bash node that ran and failed: its stdout, which a tolerated failure (`continue_on_error`) passes on as `$<id>.output`. */
    readonly output: string | null = null,
  ) {
    super(message);
    this.name = 'NodeFailure';
  }
}

/** The attempt stopped because the run was cancelled, abandoned or the server is stopping. */
export class NodeCancelled extends Error {
  constructor(
    /** What the stopped attempt's agent had reported spending (an ACP turn's tokens, priced); null when none or unknown. */
    readonly costUsd: number | null = null,
  ) {
    super('cancelled');
    this.name = 'NodeCancelled';
  }
}

export type NodeRunner = (run: NodeRunContext) => Promise<NodeOutcome>;
