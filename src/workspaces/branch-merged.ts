/**
 * Whether a run's branch `svc/<runId>` holds anything its workspace's default branch does not
 * (docs/decisions.md, "Clean-up by outcome"). Read from git's refs and objects only:
 * nothing is checked out, written or fetched.
 */

import { runGit } from './git.js';
import type { WorktreeGit } from './worktrees.js';

/** Why a branch is safe to delete, or why it is not (with what git said). */
export type BranchMergeState =
  | { merged: true; how: 'ancestor' | 'changes_in' | 'branch_gone'; into?: string }
  | { merged: false; reason: 'unmerged'; message: string }
  | { merged: false; reason: 'check_failed'; message: string };

/**
 * `branch` counts as merged into `into` when its head is reachable from it (a merge, a
 * fast-forward, or a branch with no commits of its own), or when merging it would change nothing
 * there: its changes arrived another way (a squash merge, a cherry-pick, a rebase). The
 * remote-tracking `origin/<into>` counts too — a pull request merged on the host — as far as the
 * repository last fetched it.
 */
export async function branchMergeState(repository: string, branch: string, into: string, git: WorktreeGit): Promise<BranchMergeState> {
  const options = { cwd: repository, env: git.env, timeoutMs: git.timeoutMs };
  try {
    // for-each-ref answers nothing for a missing branch, and fails only when the repository is unreadable.
    const exists = (await runGit(['for-each-ref', '--format=%(refname)', `refs/heads/${branch}`], options)).trim() !== '';
    if (!exists) return { merged: true, how: 'branch_gone' };
    const targets = await existingRefs([`refs/heads/${into}`, `refs/remotes/origin/${into}`], options);
    if (targets.length === 0) return { merged: false, reason: 'check_failed', message: `the default branch '${into}' is not in ${repository}` };
    let ahead = Number.POSITIVE_INFINITY;
    for (const target of targets) {
      const count = Number((await runGit(['rev-list', '--count', `${target}..refs/heads/${branch}`], options)).trim());
      if (count === 0) return { merged: true, how: 'ancestor', into: shortName(target) };
      ahead = Math.min(ahead, count);
    }
    for (const target of targets) {
      if (await changesAlreadyIn(target, `refs/heads/${branch}`, options)) return { merged: true, how: 'changes_in', into: shortName(target) };
    }
    const where = targets.map(shortName).join(' or ');
    return { merged: false, reason: 'unmerged', message: `${ahead} commit(s) on ${branch} whose changes are not in ${where}` };
  } catch (error) {
    return { merged: false, reason: 'check_failed', message: (error as Error).message };
  }
}

async function existingRefs(refs: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number | undefined }): Promise<string[]> {
  const out = await runGit(['for-each-ref', '--format=%(refname)', ...refs], options);
  const present = new Set(out.split('\n').filter(Boolean));
  return refs.filter((ref) => present.has(ref));
}

/**
 * Whether merging `branch` into `target` would leave `target`'s tree as it is: `git merge-tree
 * --write-tree` merges in git's object store only (git ≥ 2.38). It fails on a conflict — then the
 * changes are not simply in — and on an older git, which then answers by `git cherry`: every
 * commit of the branch has an equivalent patch in `target` (a squash of several commits is not
 * recognised there, and such a branch needs `--force`).
 */
export async function changesAlreadyIn(
  target: string,
  branch: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number | undefined },
): Promise<boolean> {
  const targetTree = (await runGit(['rev-parse', `${target}^{tree}`], options)).trim();
  const merged = await runGit(['merge-tree', '--write-tree', '--no-messages', target, branch], options).then(
    (out) => out.split('\n')[0]!.trim(),
    () => undefined,
  );
  if (merged !== undefined) return merged === targetTree;
  const cherry = await runGit(['cherry', target, branch], options).catch(() => '+');
  return !cherry.split('\n').some((line) => line.startsWith('+'));
}

const shortName = (ref: string) => ref.replace(/^refs\/(heads|remotes)\//, '');
