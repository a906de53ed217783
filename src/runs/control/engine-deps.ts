import type { Agent } from '../../agents/index.js';
import type { AgentKind } from '../../config/index.js';
import type { EventPublisher } from '../../events/index.js';
import type { Logger } from '../../shared/logger.js';
import type { SandboxWidening } from '../../workflows/index.js';
import type { Store } from '../../store/index.js';
import type { RunStreamEvent } from '../model/events.js';
import type { Coordination } from '../../coordination/index.js';
import type { RunTracing } from '../../tracing/index.js';
import type { RunStorage } from '../storage/run-repository.js';

export type { RunFilter } from '../storage/run-queries.js';
import type { AssistantChoice } from '../executor/nodes/types.js';
import type { WorktreeCommits } from '../executor/node-commits.js';
import type { MemoryAdmission } from '../../processes/index.js';
import type { RunRecord } from '../model/types.js';
import type { WorkflowResolver } from '../model/workflow-resolver.js';

/** What `RunEngine` is opened with and asked: its dependencies, limits and request shapes. */

export type { StartRunRequest } from '../model/start-request.js';

/** What links a run to a stream: its id, its conversation and its worker conversation. */
export type RunLink = Pick<RunRecord, 'id' | 'conversationId' | 'platformId'>;

/** How many runs, and how many nodes of one run, execute at once. */
export interface EngineLimits {
  /** `SVC_MAX_CONCURRENT_RUNS`: more runs wait `pending`. */
  maxConcurrentRuns: number;
  /** Nodes of one run executing at once (default `RUN_PARALLELISM`). */
  runParallelism?: number;
  /** How long an agent may stay silent after it starts (`SVC_AGENT_FIRST_EVENT_TIMEOUT_MS`). */
  agentFirstEventTimeoutMs: number;
  /** How long an agent node may go without output when it sets no `idle_timeout` (`SVC_AGENT_IDLE_TIMEOUT_MS`). */
  agentIdleTimeoutMs: number;
  /** `SVC_USAGE_LIMIT_RETRY_MS`: a usage limit that names no reset time resets this long after it was hit. */
  usageLimitRetryMs: number;
  /** `SVC_AUTO_RESUME_ON_LIMIT`: a run failed on a usage limit gets an auto-resume wake-up unless its workflow says `auto_resume: false`. */
  autoResumeOnLimit?: boolean;
  /** `SVC_AGENT_ENV_ALLOW`: the server's variables every agent (and bash node that withholds) gets beyond the base set. */
  agentEnvAllow?: readonly string[];
  /** `SVC_RUN_LEASE_MS`: with a shared database, how long a silent server's runs stay its own. */
  runLeaseMs?: number;
  /**
   * OS sandboxes (docs/decisions.md, "Agents in a sandbox", "Bash nodes in a sandbox"): `mode` is
   * `SVC_SANDBOX` (default `on`), `svcHome` the home whose files a sandboxed process may not read
   * (but for its run's worktree and artifacts), `bash` is `SVC_SANDBOX_BASH` (default off).
   */
  sandbox?: { mode: 'on' | 'off'; svcHome: string; bash?: boolean };
}

/** A run's working directory, and whether it is a worktree in this server's home (which binds the run to that home). */
export interface RunWorktree {
  cwd: string;
  worktree?: boolean;
  /** A worktree's branch (`svc/<runId>`). */
  branch?: string;
  /** A worktree made now: the commit it starts from. */
  baseCommit?: string;
}

/** What a new worktree got from its `.svc/worktree.yaml`, and the setup script still to run there. */
export interface WorktreePreparation {
  script: string | null;
  copied: string[];
  /** Listed in `copy:` but not in the workspace's checkout. */
  missing: string[];
  /** `sandbox:`: what widens the sandbox of the run's sandboxed nodes; null when it says nothing. */
  sandbox: SandboxWidening | null;
  /** `cache:` with a `setup:` (docs/decisions.md, "Setup cache and pool"): what the script made, reused while its key holds; null without one. */
  cache: SetupCacheHandle | null;
  /** A worktree taken from the workspace's pool: prepared ahead, so neither the script nor the cache is needed; null otherwise. */
  pooled?: PooledPreparation | null;
}

/** How a worktree taken from the pool was prepared, before the run existed (docs/decisions.md, "Setup cache and pool"). */
export interface PooledPreparation {
  preparedAt: string;
  /** The pool's setup ran its script, restored the setup cache, or there was no script to run. */
  preparedBy: 'setup' | 'cache' | 'none';
  /** How long that took. */
  durationMs: number;
  /** The commit it was prepared at. */
  commit: string;
  /** True when the run's base is another commit with the same cache key: checked out there, keeping only the cache paths. */
  movedToBase: boolean;
  /** The setup cache key it was prepared under (also the run's base's key when it moved there); null without `cache:`. */
  cacheKey: string | null;
  /** Taken at its own commit, and its setup left nothing `.gitignore` does not hide: nothing to commit for the setup. */
  clean: boolean;
}

/** The setup cache as one worktree's setup sees it: restore instead of running the script, or keep what it made. */
export interface SetupCacheHandle {
  /** The entry's key (a hash): the same for every worktree whose key files, script and platform are the same. */
  key: string;
  /** Copies a stored entry's paths into the worktree; what it restored, or null on a miss (the script then runs). */
  restore(): Promise<{ paths: string[]; sizeBytes: number; cloned: boolean } | null>;
  /** Keeps what the script made, after it succeeded; what was kept, or null when it made none of the paths. */
  store(): Promise<{ paths: string[]; sizeBytes: number; cloned: boolean } | null>;
}

/**
 * Where runs on a workspace execute and what they get there (docs/contract.md, "Workspaces"): a
 * worktree of their own. The workspaces implement it (workspaces/run-worktrees.ts); the engine knows
 * no more of workspaces than this.
 */
export interface WorktreeProvider {
  /**
   * The run's working directory in the workspace: a worktree of its own, made at start — or, with
   * `here`, at launch by the server that executes it, from that server's own clone. `from`: the
   * commit its branch starts at (a follow-on run), instead of the workspace's default branch.
   */
  place(workspaceId: string, runId: string, options?: { here?: boolean; from?: string }): Promise<RunWorktree>;
  /**
   * The worktree a resumed run continues in; rejects (409 `worktree_gone`) when it was cleaned up.
   * Without `here`, with a shared database, a worktree in another server's home is taken as it is
   * recorded (only a server of that home can look at it).
   */
  resume(workspaceId: string, runId: string, options?: { here?: boolean }): Promise<RunWorktree>;
  /** The workspace's registered path, on a run's record until a server places it; rejects (404) for an unknown workspace. */
  pathOf(workspaceId: string): Promise<string>;
  /** The workspace's env values, for its nodes' processes only. */
  env(workspaceId: string): Promise<Record<string, string>>;
  /** Rejects (`env_leak_blocked`) when an agent must not start in the workspace (at `cwd`, its worktree). */
  assertAgentAllowed(workspaceId: string, cwd: string): Promise<void>;
  /**
   * A new worktree's preparation from its `.svc/worktree.yaml`: the `copy:` files copied in (the
   * env-leak gate applied to them), and the `setup:` script to run; null without the file. Rejects
   * with the reason (invalid file with `file:line:col`, a copy refused) for the run's `setup_failed`.
   */
  prepare(workspaceId: string, cwd: string): Promise<WorktreePreparation | null>;
  /**
   * A new worktree's setup step is over (done or failed) and the run's first node is about to
   * start: the workspaces may begin background work for the workspace (refilling its pool), which
   * then never competes with this run's setup for the machine.
   */
  setUpDone?(workspaceId: string): void;
  /** The run was deleted: its worktree and branch go too. */
  release(runId: string): Promise<void>;
  /** The git of a run's worktree: a commit per node (node-commits.ts). */
  commits: WorktreeCommits;
}

/**
 * What the engine asks of conversations: a run's worker conversation, and the workspace a run
 * started from a conversation takes (docs/contract.md, "Workspaces").
 */
export interface RunConversations {
  /** The conversation's `workspace_id` (either of its ids); null for none or an unknown conversation. */
  workspaceOf(conversationId: string): Promise<string | null>;
  /** Creates the run's worker conversation; resolves to its `platform_conversation_id`. */
  createWorker(run: { id: string; workflow: string; workspaceId: string | null }): Promise<string>;
}

/** Everything the engine uses, and nothing else: the composition root (app/context.ts) provides it. */
export interface EngineDeps {
  store: Store;
  /** Where runs are kept; the file store's layout when omitted (run-store.ts). */
  runStorage?: RunStorage;
  /**
   * Which process executes which run (coordination/types.ts): this one alone, or one of the
   * servers sharing a database; also whether a run is placed at start or, by the server that
   * executes it, in its own home at launch (`here`; its cwd is the workspace's path until then).
   */
  coordination: Coordination;
  bus: EventPublisher<RunStreamEvent>;
  logger: Logger;
  limits: EngineLimits;
  agents: Record<AgentKind, Agent>;
  assistants: AssistantChoice;
  resolver: WorkflowResolver;
  worktrees: WorktreeProvider;
  conversations: RunConversations;
  /** The server's memory budget for running nodes (memory-admission.ts); absent: nodes are not held for memory. */
  memory?: MemoryAdmission;
  /** One trace per run (docs/decisions.md, "Traces"); absent: none. */
  tracing?: RunTracing;
}

export interface RecoveryOptions {
  /** Only the store's writer recovers interrupted runs and executes; a read-only view never writes. */
  recover: boolean;
  /** Queue `pending` runs again (the server); the CLI's foreground mode leaves them for the next server. */
  requeuePending?: boolean;
}

/** Why an executing run was stopped from outside. */
export type StopReason = 'cancel' | 'abandon' | 'shutdown';
