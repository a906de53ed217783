import { DomainError } from '../../shared/errors.js';
import type { RunEventFields, RunEventType } from './events.js';
import { TERMINAL_STATUSES, type NodeState, type NodeStatus, type RunStatus } from './types.js';

/**
 * Every change of a run's state, in one table: the engine's own (create, launch, finish,
 * interrupt) and the operations users ask for (cancel, approve, …). `from` is where a change applies,
 * `to` what it may lead to, `events` what it may emit. `transition()` is the only code that sets
 * a run's status; the 409 of a user operation in the wrong state comes from the same rows.
 */
export const RUN_CHANGES = {
  // Engine-driven.
  create: { from: [], to: ['pending'], events: ['run_created'] },
  /** A start that continues a run marked by resume. */
  continue: { from: ['failed'], to: ['pending'], events: ['run_resumed'] },
  launch: { from: ['pending'], to: ['running'], events: ['run_started'] },
  pause: { from: ['running'], to: ['paused'], events: ['run_paused'] },
  /** Only wait nodes remain open (docs/decisions.md, "Waits and signals"): the run holds no slot until one ends. */
  wait: { from: ['running'], to: ['waiting'], events: ['run_waiting'] },
  /** A wait's time came, its event was signalled or it timed out: as approve, `running` with a free slot, else `pending`. */
  wake: { from: ['waiting'], to: ['running', 'pending'], events: ['run_woken', 'node_completed', 'node_failed'] },
  complete: { from: ['running'], to: ['completed'], events: ['run_completed'] },
  /** Nodes failed, or the run could not execute at all (its definition went invalid while it waited). */
  fail: { from: ['pending', 'running'], to: ['failed'], events: ['auto_resume_scheduled', 'run_failed'] },
  /** Recovery after a crash, and shutdown: the run was executing and can be resumed. */
  interrupt: { from: ['running'], to: ['failed'], events: ['run_failed'] },
  // User operations.
  cancel: { from: ['pending', 'running', 'waiting'], to: ['cancelled'], events: ['run_cancelled'] },
  /** To `running` with a free slot, else `pending` at the head of the queue (docs/decisions.md, "Approval gates"). */
  approve: { from: ['paused'], to: ['running', 'pending'], events: ['run_approved', 'node_completed'] },
  reject: { from: ['paused'], to: ['cancelled'], events: ['run_rejected', 'run_cancelled'] },
  resume: { from: ['failed'], to: ['failed'], events: [] },
  abandon: { from: ['pending', 'running', 'paused', 'waiting'], to: ['abandoned'], events: ['run_abandoned'] },
  delete: { from: TERMINAL_STATUSES, to: [], events: [] },
} as const satisfies Record<string, { from: readonly RunStatus[]; to: readonly RunStatus[]; events: readonly RunEventType[] }>;

export type RunChange = keyof typeof RUN_CHANGES;

/** The changes a user asks for (HTTP and CLI); the rest only the engine makes. */
export const RUN_OPERATIONS = ['cancel', 'approve', 'reject', 'resume', 'abandon', 'delete'] as const satisfies readonly RunChange[];
export type RunOperation = (typeof RUN_OPERATIONS)[number];

export const canChange = (change: RunChange, status: RunStatus): boolean => (RUN_CHANGES[change].from as readonly RunStatus[]).includes(status);

/** The check of a user operation: 409 `invalid_run_state` naming the current state and the allowed ones. */
export function assertOperationAllowed(operation: RunOperation, status: RunStatus): void {
  if (canChange(operation, status)) return;
  const allowed: readonly RunStatus[] = RUN_CHANGES[operation].from;
  throw new DomainError('invalid_run_state', `Cannot ${operation} a run that is ${status}; ${operation} applies to ${allowed.join(', ')} runs.`, {
    status,
    allowed,
  });
}

/** One event to emit with a change, typed by its `type`. */
export type EventSpec = { [T in RunEventType]: { type: T; fields: RunEventFields[T] } }[RunEventType];

/**
 * Node states, in one table. Node changes are written with their run's record once per scheduling
 * round (docs/decisions.md, "Run snapshots"), so `moveNode` checks and makes the new state; the executor puts it
 * in the run's next snapshot, saves and emits.
 */
export const NODE_CHANGES = {
  start: { from: ['pending'], to: 'running' },
  wait: { from: ['pending'], to: 'waiting_approval' },
  skip: { from: ['pending'], to: 'skipped' },
  complete: { from: ['running'], to: 'completed' },
  fail: { from: ['running'], to: 'failed' },
  /** A node the executor stopped (cancel, abandon, shutdown). */
  stop: { from: ['running'], to: 'cancelled' },
  /** The gate an approval completes. */
  approve: { from: ['waiting_approval'], to: 'completed' },
  /**
   * A prompt or command node whose agent has to wait for an agent slot (docs/decisions.md, Agents):
   * `waiting` (with `waitingFor: "agent_slot"`) until it holds one, since no process of it runs.
   */
  queue: { from: ['running'], to: 'waiting' },
  /** It got its slot (its agent starts now), or stopped waiting for one (cancelled). */
  dequeue: { from: ['waiting'], to: 'running' },
  /** A wait node starts waiting (it runs nothing). */
  hold: { from: ['pending'], to: 'waiting' },
  /** Its time came, or its event was signalled. */
  arrive: { from: ['waiting'], to: 'completed' },
  /** Its event did not come in time (`wait_timeout`). */
  expire: { from: ['waiting'], to: 'failed' },
  /** Cancel, abandon, reject, or nodes left unrun when a run fails. */
  close: { from: ['pending', 'running', 'waiting_approval', 'waiting'], to: 'cancelled' },
  /** Recovery and shutdown: a node that was executing, or waiting for its agent slot (or stopped by the shutdown itself). */
  interrupt: { from: ['running', 'waiting', 'cancelled'], to: 'failed' },
  /** Resume: everything but completed nodes runs again from scratch. */
  reset: { from: ['running', 'failed', 'skipped', 'waiting_approval', 'waiting', 'cancelled', 'pending'], to: 'pending' },
} as const satisfies Record<string, { from: readonly NodeStatus[]; to: NodeStatus }>;

export type NodeChange = keyof typeof NODE_CHANGES;

export const canMoveNode = (change: NodeChange, status: NodeStatus): boolean => (NODE_CHANGES[change].from as readonly NodeStatus[]).includes(status);

/** The node's new state after a change the table allows (`state` is left as it was); throws (an engine bug) otherwise. */
export function moveNode(state: NodeState, change: NodeChange, patch: Partial<Omit<NodeState, 'status'>> = {}): NodeState {
  if (!canMoveNode(change, state.status)) throw new Error(`node change ${change} does not apply to a ${state.status} node`);
  return { ...state, ...patch, status: NODE_CHANGES[change].to };
}
