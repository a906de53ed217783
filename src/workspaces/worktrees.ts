/**
 * A run's git worktree on disk (docs/contract.md, "Workspaces"): made on branch `svc/<runId>` under
 * `<home>/workspaces/<id>/worktrees/`, and removed with its branch, leaving nothing behind in the
 * repository it belongs to. The records of worktrees are run-worktrees.ts's; this is only the git side.
 */

import { mkdir, rm } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { DomainError } from '../shared/errors.js';
import { runGit } from './git.js';
import type { Environment } from './records.js';

export interface WorktreeGit {
  env: NodeJS.ProcessEnv;
  timeoutMs?: number | undefined;
}

/** Adds the worktree at `path` on `branch` (made from `from` unless it exists); 409 `worktree_failed` when git refuses. */
export async function addWorktree(
  target: { repository: string; path: string; branch: string; from: string; what: string; workspaceId: string },
  git: WorktreeGit,
): Promise<void> {
  const { repository, path, branch, from } = target;
  await mkdir(dirname(path), { recursive: true });
  const options = { cwd: repository, env: git.env, timeoutMs: git.timeoutMs };
  const exists = await branchExists(repository, branch, git);
  try {
    // `-f`: our own path may still be registered from a worktree removed by hand. (Not `worktree
    // prune`: that would also drop the user's own stale worktree entries.)
    await runGit(exists ? ['worktree', 'add', '-f', '--', path, branch] : ['worktree', 'add', '-f', '-b', branch, '--', path, from], options);
  } catch (error) {
    // The repository changed under us (its default branch is gone, it is locked…): the user's to fix.
    throw new DomainError('worktree_failed', `Could not make a worktree for ${target.what}: ${(error as Error).message}`, {
      workspaceId: target.workspaceId,
    });
  }
}

/** Whether `refs/heads/<branch>` exists in the repository. */
export function branchExists(repository: string, branch: string, git: WorktreeGit): Promise<boolean> {
  return runGit(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: repository, ...git }).then(
    () => true,
    () => false,
  );
}

/**
 * Removes the environment's worktree and branch; its directory is deleted only when it lies inside
 * `ownDir` (`<home>/workspaces/<id>/worktrees`), never a directory of the user's. Works without the
 * workspace record: the environment knows its repository.
 */
export async function removeWorktree(environment: Environment, ownDir: string, git: WorktreeGit): Promise<void> {
  const options = { cwd: environment.repository, env: git.env, timeoutMs: git.timeoutMs };
  await runGit(['worktree', 'remove', '--force', '--force', '--', environment.path], options).catch(() => undefined);
  // update-ref, not `branch -D`: that one leaves a packed-refs file behind in the user's repository.
  await runGit(['update-ref', '-d', `refs/heads/${environment.branch}`], options).catch(() => undefined);
  if (isInside(environment.path, ownDir)) await rm(environment.path, { recursive: true, force: true });
}

/** Whether `path` lies strictly inside `dir` (after resolving `..`). */
export function isInside(path: string, dir: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep) && !rel.includes(`..${sep}`);
}
