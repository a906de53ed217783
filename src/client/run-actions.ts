import { canChange, RUN_OPERATIONS, type RunOperation } from '../engine/lifecycle.js';
import type { RunStatus } from '../engine/statuses.js';

export type { RunOperation };

/**
 * What a person may do to a run in this state, from the engine's one lifecycle table: the
 * dashboard shows exactly these buttons, and the server answers 409 for anything else.
 */
export function allowedOperations(status: RunStatus): RunOperation[] {
  return RUN_OPERATIONS.filter((operation) => canChange(operation, status));
}
