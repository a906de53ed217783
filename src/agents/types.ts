import type { Logger } from '../shared/logger.js';
import type { AgentToolCall } from './tool-activity.js';
import type { Permissions } from '../shared/permissions.js';
import type { SandboxDenial, SandboxPolicy } from '../sandbox/index.js';
import type { AcpPreset } from '../config/index.js';

/** An acp assistant's start, from its configuration (config/acp-assistants.ts). */
export interface AcpLaunch {
  /** The assistant's name: its agent slots, its own directory under svc's home. */
  name: string;
  /** The executable and its arguments. */
  command: string[];
  /** Values its agent gets, over the server's (the configuration's `env`). */
  env: Record<string, string>;
  preset: AcpPreset | null;
  /** The name of the server's variable holding its key (its value reaches the agent as its preset says). */
  apiKeyEnv: string | null;
}

export interface AgentRequest {
  /** The assistant the call is for, when it is not the agent's own name (an acp assistant's): what its agent slots count. */
  assistant?: string;
  /** An acp assistant's command, preset and values; the acp agent runs only with one. */
  acp?: AcpLaunch;
  /**
   * The conversation so far, as text: what an agent that cannot continue `resumeSession` (an ACP
   * agent whose `session/load` failed) is given before the message instead, so the reply still
   * knows what came before.
   */
  transcript?: () => Promise<string>;
  /** The workflow node the call answers, when it answers one (a workflow test's fixture is keyed by it). */
  nodeId?: string;
  prompt: string;
  cwd: string;
  model: string | null;
  /** What the agent may do in `cwd`, passed as each CLI's own flags (permissions.ts). */
  permissions: Permissions;
  /**
   * The OS sandbox the agent's commands run in (sandbox.ts): given as each CLI's own settings, after
   * svc checked it can start (`sandbox_unavailable` otherwise). Absent or null: no sandbox (`full`,
   * `SVC_SANDBOX=off`, a conversation's reply).
   */
  sandbox?: SandboxPolicy | null;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** No stdout line within this time → the process group is killed (`agent_first_event_timeout`). */
  firstEventTimeoutMs: number;
  /** Whole-call limit (the node's timeout); undefined → none. */
  timeoutMs?: number;
  /**
   * No output at all (a stdout chunk, a stderr chunk) for this long, at any point of the call → the
   * process group is killed (`stalled`; the node's `idle_timeout`). Undefined → no such limit.
   */
  idleTimeoutMs?: number;
  /** Assistant text as it streams. */
  onText(text: string): void;
  /** Each tool call the agent made, as it resolves (ran, failed, or was refused). */
  onTool?(call: AgentToolCall): void;
  /** Each refusal of the agent's sandbox, as its tool calls report it (sandbox/denials.ts). */
  onSandboxDenied?(denial: SandboxDenial): void;
  /** The agent's sandbox is weaker than asked (an agent too old for svc's policy), and why. */
  onSandboxWarning?(warning: string): void;
  /** Called with true when the call has to wait for an agent slot (agent-slots.ts), and false when it gets one. */
  onSlotWait?(waiting: boolean): void;
  /**
   * Called once the call holds its agent slot, before its process starts: the server's memory
   * admission waits here, so a call waiting for a slot holds no memory, and one holding a slot waits
   * for memory no longer than the nodes ahead of it in the budget's queue. Rejects when the call was
   * stopped meanwhile.
   */
  admitMemory?(): Promise<void>;
  /** The agent's process-group leader, once spawned (so a crashed server's successor can stop it). */
  onProcess?(pid: number, stop: () => Promise<void>): void;
  /** Continue an earlier agent session (conversations): claude `--resume`, codex `exec resume`. */
  resumeSession?: string;
  /**
   * The session's token totals after its previous turn: codex reports a resumed thread's running
   * total, so the turn's own use is the difference.
   */
  sessionTokens?: AgentTokens | null;
  /** What is left of the run's spend cap (USD), for agents that can stop themselves at a budget (claude `--max-budget-usd`). */
  maxBudgetUsd?: number;
  /** A model server to use instead of the agent's default (docs/contract.md, "Model endpoints"). */
  endpoint?: AgentEndpoint | null;
  logger: Logger;
}

/**
 * A model API endpoint from the assistant's configuration: its URL and the *name* of the variable
 * (in the server's environment) that holds its key — the key itself is never stored or shown.
 */
export interface AgentEndpoint {
  baseUrl: string;
  apiKeyEnv: string | null;
}

/** Tokens an agent reported; `cachedInput` (codex's `cached_input_tokens`) is the part of `input` served from the provider's cache. */
export interface AgentTokens {
  input: number;
  output: number;
  cachedInput?: number;
}

export interface AgentResult {
  text: string;
  /** Reported cost in USD; null when the agent reports none (codex), never a made-up 0. */
  costUsd: number | null;
  /** What this call used. */
  tokens: AgentTokens | null;
  sessionId: string | null;
  /** The session's running token totals, where the agent reports them that way (codex). */
  sessionTokens?: AgentTokens | null;
  model: string | null;
}

/** Why an agent call failed, as a stable code for node errors and messages. */
export type AgentErrorCode =
  | 'agent_first_event_timeout'
  | 'agent_timeout'
  | 'agent_failed'
  | 'agent_not_found'
  | 'agent_cancelled'
  | 'agent_protocol_error'
  /** The session asked for with `resumeSession` does not exist (any more) for the agent. */
  | 'agent_session_lost'
  /** The agent would refuse the permissions asked for (claude `full` as root without IS_SANDBOX=1). */
  | 'agent_refused'
  /** The request asked for a sandbox that cannot start here (bubblewrap or socat missing, user namespaces refused). */
  | 'sandbox_unavailable'
  /** The agent printed a line longer than svc reads (AGENT_LINE_LIMIT_BYTES) and was stopped. */
  | 'output_too_large'
  /** The agent printed nothing for `idleTimeoutMs` and was stopped (the same code as a silent bash node's). */
  | 'stalled'
  /** The agent ended on its usage or rate limit (usage-limit.ts); `resumeAt` says when it resets, where the agent said. */
  | 'usage_limit'
  /** A conversation reply's agent passed its assistant's `maxMemory` and was stopped (a node's is the executor's own failure). */
  | 'memory_exceeded'
  /** An ACP agent ended its turn on a stop reason other than `end_turn` (docs/decisions.md, "ACP agents"). */
  | 'agent_refusal'
  | 'agent_max_tokens'
  | 'agent_max_turn_requests'
  /** The agent cancelled its turn itself (svc did not ask it to). */
  | 'agent_turn_cancelled';

export class AgentError extends Error {
  constructor(
    readonly code: AgentErrorCode,
    message: string,
    /** What the failed call reported spending (a claude error result has a cost); null when unknown. */
    readonly costUsd: number | null = null,
    /** `usage_limit`: when the limit resets, as the agent said it (ISO); null when it named no time. */
    readonly resumeAt: string | null = null,
    /** What the failed call reported using (an ACP turn that ended on another stop reason): priced as a result's are. */
    readonly tokens: AgentTokens | null = null,
  ) {
    super(message);
    this.name = 'AgentError';
  }
}

/** One coding agent driven as a subprocess. Adding an agent = one file implementing this. */
export interface Agent {
  readonly name: string;
  run(request: AgentRequest): Promise<AgentResult>;
}
