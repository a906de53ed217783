/**
 * The one code that sets a run's status (docs/decisions.md, "Run snapshots"): a change checked
 * against the lifecycle table (model/lifecycle.ts), saved over the state it was decided on, then
 * announced.
 */

import { DomainError } from '../../shared/errors.js';
import { canChange, RUN_CHANGES, type EventSpec, type RunChange } from '../model/lifecycle.js';
import type { RunEventType } from '../model/events.js';
import type { RunRecord, RunStatus } from '../model/types.js';
import type { RunStore } from './run-store.js';

export interface TransitionOptions {
  /** The resulting state, when the change has more than one. */
  to?: RunStatus;
  /** Other fields of the run that change with it (error, finishedAt, …). */
  patch?: Partial<Omit<RunRecord, 'id' | 'status'>>;
  /** Emitted in order once the record is saved. */
  events?: EventSpec[];
}

/**
 * Checks a change against the table, makes the run's next snapshot, saves it, then emits its events
 * — so a client that sees an event finds the record already saying so — and resolves to the saved
 * snapshot (`run` itself is left as it was: docs/decisions.md, "Run snapshots"). A change the table
 * does not allow is a bug in the engine (the user-facing operations check first), reported as such.
 */
export async function transition(runs: RunStore, run: RunRecord, change: RunChange, options: TransitionOptions = {}): Promise<RunRecord> {
  const row = RUN_CHANGES[change];
  const to = options.to ?? row.to[0];
  if (change !== 'create' && !canChange(change, run.status)) throw new Error(`run ${run.id}: ${change} does not apply to a ${run.status} run`);
  if (to === undefined || !(row.to as readonly RunStatus[]).includes(to)) throw new Error(`run ${run.id}: ${change} cannot lead to ${String(to)}`);
  for (const event of options.events ?? []) {
    if (!(row.events as readonly RunEventType[]).includes(event.type)) throw new Error(`run ${run.id}: ${change} does not emit ${event.type}`);
  }
  // A change of state is written only over the state it was decided on: the first change of a run
  // wins and a later one decided on the old state is told, as a late request is (409).
  const saved = await runs.save({ ...run, ...options.patch, status: to }, undefined, change === 'create' ? 'absent' : run.status);
  if (!saved) {
    const stored = await runs.get(run.id);
    throw new RunChangedElsewhere(run.id, change, stored?.status);
  }
  // Where a run ends (or is continued by resume): the benchmarks' summary index follows, before the event announces it.
  await runs.summaries.update(saved);
  for (const event of options.events ?? []) await runs.emit(saved, event.type, event.fields as never);
  return saved;
}

/** A transition lost to a change of the same run made elsewhere (another server) since it was read. */
export class RunChangedElsewhere extends DomainError {
  constructor(runId: string, change: RunChange, status: RunStatus | undefined) {
    super('invalid_run_state', `Cannot ${change} run ${runId}: it changed meanwhile${status ? ` (it is ${status})` : ''}.`, {
      status: status ?? null,
      allowed: RUN_CHANGES[change].from,
    });
  }
}
