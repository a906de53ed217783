/**
 * A run's branch landed (docs/decisions.md, "Landing a run"): the door that lets a merge, push or
 * pull request happen only once the run's worktree stops changing, and the record of what was done
 * — `merged` with a `run_merged` event, or the pull request's URL — written through the transition
 * table without changing the run's state.
 */

import { ApiError } from '../shared/errors.js';
import { LANDABLE_STATUSES, transition } from './lifecycle.js';
import type { RunStore } from './run-store.js';
import type { RunRecord, RunStatus } from './types.js';

export type RunMerged = NonNullable<RunRecord['merged']>;
export type RunPullRequest = NonNullable<RunRecord['pullRequest']>;

/**
 * 409 `no_worktree` for a run that had no branch of its own; 409 `run_active` while the run is
 * pending or running: its nodes may still commit to the branch.
 */
export function assertLandable(run: RunRecord): void {
  if (!run.branch) {
    throw new ApiError(409, 'no_worktree', `Run ${run.id} has no worktree of its own (it ran outside a git workspace), so it has no branch to land.`, {
      runId: run.id,
    });
  }
  if ((LANDABLE_STATUSES as readonly RunStatus[]).includes(run.status)) return;
  throw new ApiError(409, 'run_active', `Run ${run.id} is ${run.status}; its branch can be merged, pushed or proposed once it stops (or pauses at a gate).`, {
    status: run.status,
    allowed: LANDABLE_STATUSES,
  });
}

export type Landing = { merged: Omit<RunMerged, 'at'> } | { pullRequest: Omit<RunPullRequest, 'at'> };

/** Records a merge (with its `run_merged` event) or a pull request on the run. */
export async function recordLanding(runs: RunStore, run: RunRecord, landing: Landing, at = new Date().toISOString()): Promise<RunRecord> {
  if ('merged' in landing) {
    const merged = { ...landing.merged, at };
    await transition(runs, run, 'land', { to: run.status, patch: { merged }, events: [{ type: 'run_merged', fields: landing.merged }] });
  } else {
    await transition(runs, run, 'land', { to: run.status, patch: { pullRequest: { ...landing.pullRequest, at } } });
  }
  return run;
}
