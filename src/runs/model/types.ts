import type { z } from 'zod';
import type { NodeChangesSchema, NodeStateSchema, RunRecordSchema } from './schemas.js';

/** Run and node types: the states from statuses.ts, the shapes inferred from the schemas the API documents. */
export * from './statuses.js';
export type NodeState = z.infer<typeof NodeStateSchema>;
export type NodeChanges = z.infer<typeof NodeChangesSchema>;
export type RunRecord = z.infer<typeof RunRecordSchema>;

/** Persisted run events are the discriminated union of `events.ts`. */
export type { RunEvent } from './events.js';
