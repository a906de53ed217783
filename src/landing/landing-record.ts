/**
 * A run's branch landed (docs/decisions.md, "Landing a run: merge, push, pull request"): the check
 * that lets a merge, push or pull request happen only once the run's worktree stops changing, and
 * the record of what was done
 * — `merged` with a `run_merged` event, or the pull request's URL. The run's state does not change,
 * so this is no transition: the record is saved over the state it was read in, as a transition is.
 */

import { DomainError } from '../shared/errors.js';
import { type RunStore, TERMINAL_STATUSES, type RunRecord, type RunStatus } from '../runs/index.js';

/** A run whose branch may be merged, pushed or proposed: anything but pending or running (its worktree still changing). */
export const LANDABLE_STATUSES: readonly RunStatus[] = ['paused', ...TERMINAL_STATUSES];

export type RunMerged = NonNullable<RunRecord['merged']>;
export type RunPullRequest = NonNullable<RunRecord['pullRequest']>;

/**
 * 409 `no_worktree` for a run that had no branch of its own; 409 `run_active` while the run is
 * pending or running: its nodes may still commit to the branch.
 */
export function assertLandable(run: RunRecord): void {
  if (!run.branch) {
    throw new DomainError('no_worktree', `Run ${run.id} has no worktree of its own (it ran outside a git workspace), so it has no branch to land.`, {
      runId: run.id,
    });
  }
  if (LANDABLE_STATUSES.includes(run.status)) return;
  throw new DomainError('run_active', `Run ${run.id} is ${run.status}; its branch can be merged, pushed or proposed once it stops (or pauses at a gate).`, {
    status: run.status,
    allowed: LANDABLE_STATUSES,
  });
}

export type Landing = { merged: Omit<RunMerged, 'at'> } | { pullRequest: Omit<RunPullRequest, 'at'> };

/** Records a merge (with its `run_merged` event) or a pull request on the run; resolves to its snapshot with it. */
export async function recordLanding(runs: RunStore, run: RunRecord, landing: Landing, at = new Date().toISOString()): Promise<RunRecord> {
  const landed = 'merged' in landing ? { ...run, merged: { ...landing.merged, at } } : { ...run, pullRequest: { ...landing.pullRequest, at } };
  // Over the state it was read in: a paused run approved meanwhile elsewhere is told, not overwritten.
  const saved = await runs.save(landed, undefined, run.status);
  if (!saved) {
    const status = (await runs.get(run.id))?.status ?? null;
    throw new DomainError(
      'invalid_run_state',
      `Run ${run.id} changed while its branch was landed${status ? ` (it is ${status})` : ''}; the git side is done, but not recorded on the run.`,
      {
        status,
        allowed: LANDABLE_STATUSES,
      },
    );
  }
  if ('merged' in landing) await runs.emit(saved, 'run_merged', landing.merged);
  return saved;
}
