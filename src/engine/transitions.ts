import { ApiError } from '../shared/errors.js';
import type { RunStatus } from './types.js';

/**
 * Every state change a user can ask for, in one table (CONTRACT §5). Engine-driven changes
 * (pending → running → completed/failed/paused) happen in the executor; these are the doors.
 */
export const RUN_OPERATIONS = {
  cancel: { from: ['pending', 'running'], to: 'cancelled' },
  approve: { from: ['paused'], to: 'running' },
  reject: { from: ['paused'], to: 'cancelled' },
  resume: { from: ['failed'], to: 'failed' },
  abandon: { from: ['pending', 'running', 'paused'], to: 'abandoned' },
  delete: { from: ['completed', 'failed', 'cancelled', 'abandoned'], to: null },
} as const satisfies Record<string, { from: readonly RunStatus[]; to: RunStatus | null }>;

export type RunOperation = keyof typeof RUN_OPERATIONS;

/** Throws 409 `invalid_run_state` naming the current state and the allowed ones. */
export function assertOperationAllowed(operation: RunOperation, status: RunStatus): void {
  const allowed: readonly RunStatus[] = RUN_OPERATIONS[operation].from;
  if (!allowed.includes(status)) {
    throw new ApiError(409, 'invalid_run_state', `Cannot ${operation} a run that is ${status}; ${operation} applies to ${allowed.join(', ')} runs.`, {
      status,
      allowed,
    });
  }
}
