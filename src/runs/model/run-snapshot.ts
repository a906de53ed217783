/**
 * Run records are immutable snapshots (docs/decisions.md, "Run snapshots"): a change makes a new
 * record (lifecycle.ts `transition`, the executor's node progress) and nothing changes one in place.
 * Every record the run store writes or reads is frozen, nodes and all, so code that still tried to
 * change a shared record would throw at once (ESM code is strict) instead of racing an await.
 */

import type { NodeState, RunRecord } from './types.js';

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
}

/** The record, frozen deep (a record already frozen costs a check per part not yet frozen). */
export function freezeRun(run: RunRecord): RunRecord {
  deepFreeze(run);
  return run;
}

/** The run with one node's state replaced: a new record, the other nodes shared with the old one. */
export const withNode = (run: RunRecord, nodeId: string, state: NodeState): RunRecord => ({ ...run, nodes: { ...run.nodes, [nodeId]: state } });

/** A copy of `value` without `keys` (a field a change removes rather than sets). */
export function without<T extends object, K extends keyof T>(value: T, ...keys: K[]): Omit<T, K> {
  const copy = { ...value };
  for (const key of keys) delete copy[key];
  return copy;
}
