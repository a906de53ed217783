/**
 * Run, node and trigger states: the lists the schemas (schemas.ts) enumerate. Free of zod, since
 * the CLI's offline commands load them and must not load zod.
 */

/**
 * Run states. Terminal ones never change again, except by deletion. `paused` (at an approval gate)
 * and `waiting` (at a durable wait: docs/decisions.md, "Waits and signals") hold no slot and no process.
 */
export const RUN_STATUSES = ['pending', 'running', 'paused', 'waiting', 'completed', 'failed', 'cancelled', 'abandoned'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const TERMINAL_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled', 'abandoned'];
export const isTerminal = (status: RunStatus) => TERMINAL_STATUSES.includes(status);

/** `waiting`: a wait node, until its time comes or its event is signalled. */
export const NODE_STATUSES = ['pending', 'running', 'completed', 'failed', 'skipped', 'waiting_approval', 'waiting', 'cancelled'] as const;
export type NodeStatus = (typeof NODE_STATUSES)[number];
/** A node that will not change again in this pass of the run. */
export const isNodeDone = (status: NodeStatus) => status === 'completed' || status === 'failed' || status === 'skipped' || status === 'cancelled';

/** `test`: a run of `svc workflow test`, its agents answered from a fixture (kept out of benchmarks). */
export const TRIGGER_KINDS = ['api', 'cli', 'webhook', 'schedule', 'test'] as const;
export type TriggerKind = (typeof TRIGGER_KINDS)[number];
