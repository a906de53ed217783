import { DomainError } from '../../shared/errors.js';
import type { RunStore } from '../storage/run-store.js';

/** Where a follow-on run starts (docs/decisions.md, "Follow-on runs"): the earlier run's workspace and head commit. */
export interface FollowOnBase {
  fromRunId: string;
  workspaceId: string;
  commit: string;
}

/**
 * The earlier run a follow-on run branches from, checked: it must have had a worktree (a branch and
 * a head commit on its record), on the workspace the new run is on (`workspaceId`; none asked for
 * means the earlier run's). 404 `run_not_found` for an unknown run, 400 saying which rule it broke.
 */
export async function followOnBase(runs: RunStore, fromRunId: string, workspaceId: string | null): Promise<FollowOnBase> {
  const from = await runs.resolve(fromRunId);
  if (!from.workspaceId || !from.branch || !from.headCommit) {
    throw new DomainError(
      'from_run_without_worktree',
      `Run ${from.id} ran in ${from.cwd}, not in a worktree of a workspace: a follow-on run branches from the head of an earlier run's worktree.`,
      { fromRunId: from.id },
    );
  }
  if (workspaceId !== null && workspaceId !== from.workspaceId) {
    throw new DomainError(
      'from_run_other_workspace',
      `Run ${from.id} is on workspace ${from.workspaceId}, not ${workspaceId}: a follow-on run stays on the workspace of the run it follows.`,
      { fromRunId: from.id, fromWorkspaceId: from.workspaceId, workspaceId },
    );
  }
  return { fromRunId: from.id, workspaceId: from.workspaceId, commit: from.headCommit };
}
