/**
 * A run's worktree and branch removed once its pull request is merged or closed (docs/decisions.md,
 * "Pull request reactions"), as `svc workspace cleanup --merged` would remove them, and as safely:
 * a worktree with changes not committed, or a branch with commits the pull request's branch never
 * had (not pushed), is kept with the reason; so is a run that can still change.
 */

import { isDirectory } from './local-repository.js';
import { runGit } from './git.js';
import type { Environment } from './records.js';
import type { WorkspaceCore } from './workspace-core.js';

export interface PushedCleanup {
  runId: string;
  removed: boolean;
  /** Why it was kept (or why there was nothing to remove). */
  reason?: string;
}

/** Files the worktree has changes of, untracked ones included: removing it would lose them. */
async function dirtyFiles(environment: Environment, core: WorkspaceCore): Promise<string[]> {
  if (!(await isDirectory(environment.path))) return [];
  const out = await runGit(['status', '--porcelain=v1', '--untracked-files=all'], { ...core.git, cwd: environment.path });
  return out
    .split('\n')
    .filter((line) => line.length > 3)
    .map((line) => line.slice(3));
}

/** Whether every commit of the run's branch is in `pushed` (the pull request's last head): nothing of it exists only here. */
async function pushedAlready(environment: Environment, pushed: string, core: WorkspaceCore): Promise<boolean> {
  const options = { ...core.git, cwd: environment.repository };
  const head = (await runGit(['rev-parse', '--verify', '--quiet', `refs/heads/${environment.branch}^{commit}`], options).catch(() => '')).trim();
  // A branch that is gone has nothing left to lose.
  if (!head) return true;
  return runGit(['merge-base', '--is-ancestor', head, pushed], options).then(
    () => true,
    () => false,
  );
}

export async function cleanupPushedRun(core: WorkspaceCore, runId: string, pushed: string): Promise<PushedCleanup> {
  const { items } = await core.repos.environments.list({ runId, limit: 1 });
  const environment = items[0];
  if (!environment) return { runId, removed: false, reason: 'it has no worktree (already cleaned up)' };
  if (!core.isOwn(environment)) return { runId, removed: false, reason: "its worktree is in another server's home" };
  return core.exclusive(environment.workspace_id, async () => {
    const view = await core.environmentView(environment);
    if (view.status !== 'ended') return { runId, removed: false, reason: `run ${runId} is not finished` };
    const dirty = await dirtyFiles(environment, core);
    if (dirty.length > 0) return { runId, removed: false, reason: `its worktree has changes not committed (${dirty.slice(0, 5).join(', ')})` };
    if (!(await pushedAlready(environment, pushed, core))) {
      return { runId, removed: false, reason: `its branch ${environment.branch} has commits the pull request's branch (${pushed}) does not` };
    }
    await core.removeEnvironment(environment);
    return { runId, removed: true };
  });
}
