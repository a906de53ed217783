import type { Logger } from '../../shared/logger.js';
import type { WorkflowDefinition } from '../../workflows/index.js';
import type { NodeState, RunRecord } from '../model/types.js';
import { withNode } from '../model/run-snapshot.js';
import type { RunStore } from '../storage/run-store.js';
import type { NodeCommits, WorktreeCommits } from './node-commits.js';
import type { NodeRunner, PromptDeps } from './nodes/types.js';
import type { RoundWrites } from './round-writes.js';
import type { RunMemory } from './node-memory.js';
import type { MemoryAdmission } from '../../processes/index.js';
import type { RunTrace } from '../../tracing/index.js';

/** What a started node can wait for before its process runs (`waitingFor`). */
export type NodeWaitReason = 'agent_slot' | 'memory';

export interface ExecutorDeps {
  runs: RunStore;
  logger: Logger;
  /** Nodes of one run executing at once. */
  parallelism: number;
  /** For `prompt` and `command` nodes. */
  prompt: PromptDeps;
  /** The env values of the run's workspace (empty outside one). */
  workspaceEnv: Readonly<Record<string, string>>;
  /** `SVC_AGENT_ENV_ALLOW`: the server's variables every withheld environment gets beyond the base set. */
  envAllow: readonly string[];
  /** A run in a worktree of its own: the git that commits each node's changes (node-commits.ts). */
  worktree?: WorktreeCommits;
  /** `$SVC_PORT`: the free TCP port reserved for this run while it executes (run-ports.ts). */
  port?: number;
  /**
   * Start a round's processes only once the store took its record write: another server may take
   * the run over (coordination `runsMayBeTakenOver`), and a refused write must stop the run before
   * anything more of it starts. Otherwise the processes start as the write is made.
   */
  fenceRounds?: boolean;
  /** The server's memory budget: each attempt of a process node is admitted to it before it starts (memory-admission.ts). */
  memory?: MemoryAdmission;
  /** The run's span in this process (docs/decisions.md, "Traces"); absent: the run is not traced. */
  trace?: RunTrace;
}

/**
 * The run's latest snapshot while it executes. Only its executor changes it, and every change makes
 * the next snapshot in one synchronous step, so none is lost across an await; each scheduling round
 * saves the latest (docs/decisions.md, "Run snapshots").
 */
export class ExecutionState {
  constructor(public run: RunRecord) {}

  node(nodeId: string): NodeState {
    return this.run.nodes[nodeId]!;
  }

  setNode(nodeId: string, state: NodeState): void {
    this.run = withNode(this.run, nodeId, state);
  }

  patchNode(nodeId: string, patch: Partial<NodeState>): void {
    this.setNode(nodeId, { ...this.node(nodeId), ...patch });
  }
}

/** What executing one node shares with its run's executor (node-execution.ts). */
export interface ExecutionScope {
  readonly deps: ExecutorDeps;
  readonly workflow: WorkflowDefinition;
  readonly state: ExecutionState;
  readonly runners: Record<'bash' | 'prompt' | 'command', NodeRunner>;
  /** Outputs of the nodes done so far, in full, by node id. */
  readonly outputs: Record<string, string>;
  readonly variables: Record<string, string>;
  readonly artifactsDir: string;
  /** Aborted when the run is stopped from outside or by the executor itself. */
  readonly signal: AbortSignal;
  readonly commits: NodeCommits | undefined;
  readonly rounds: RoundWrites;
  /** The memory of the run's nodes running at once (node-memory.ts). */
  readonly memory: RunMemory;
  /** Counts one agent call's reported cost against the run's cap. */
  spend(nodeId: string, costUsd: number | null | undefined): Promise<void>;
  /** The node waits for an agent slot or for memory, or got it (false). */
  slotWait(nodeId: string, waiting: NodeWaitReason | false): void;
}
