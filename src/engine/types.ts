import type { z } from 'zod';
import type { NodeStateSchema, NodeStatusSchema, RunRecordSchema, RunStatusSchema, TriggerKindSchema } from './schemas.js';

/**
 * Run and node types, inferred from the schemas (schemas.ts) that the API documents. The state
 * lists stay here, free of zod: the CLI's offline commands load this module and not zod.
 */
export const RUN_STATUSES = ['pending', 'running', 'paused', 'completed', 'failed', 'cancelled', 'abandoned'] as const;
export const NODE_STATUSES = ['pending', 'running', 'completed', 'failed', 'skipped', 'waiting_approval', 'cancelled'] as const;
export const TRIGGER_KINDS = ['api', 'cli', 'webhook'] as const;
export type RunStatus = z.infer<typeof RunStatusSchema>;
export type NodeStatus = z.infer<typeof NodeStatusSchema>;
export type TriggerKind = z.infer<typeof TriggerKindSchema>;
export type NodeState = z.infer<typeof NodeStateSchema>;
export type RunRecord = z.infer<typeof RunRecordSchema>;

export const TERMINAL_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled', 'abandoned'];
export const isTerminal = (status: RunStatus) => TERMINAL_STATUSES.includes(status);

/** A node that will not change again in this pass of the run. */
export const isNodeDone = (status: NodeStatus) => status === 'completed' || status === 'failed' || status === 'skipped' || status === 'cancelled';

/** Persisted run events are the discriminated union of `events.ts`. */
export type { RunEvent } from './events.js';
