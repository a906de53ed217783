/**
 * The landing queue's scratch worktree (docs/decisions.md, "Landing queue"): a detached worktree of
 * the repository at exactly the commit that would land, under `<home>/queue/<workspace>/`, where
 * `verify:` runs. The user's checkout is never touched; what verify leaves behind goes with it.
 */

import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runGit, type WorktreeGit } from '../workspaces/index.js';

export interface Scratch {
  path: string;
  remove(): Promise<void>;
}

/** Removes a scratch worktree and its registration in the repository; a missing one is no error. */
async function removeScratch(repository: string, path: string, git: WorktreeGit): Promise<void> {
  await runGit(['worktree', 'remove', '--force', '--force', '--', path], { ...git, cwd: repository }).catch(() => undefined);
  // Not `worktree prune`: that would drop the user's own stale worktree entries too. A registration
  // left by a directory removed otherwise is overridden by `worktree add --force`.
  await rm(path, { recursive: true, force: true });
}

/**
 * A scratch worktree at `commit`, one per attempt (`<run>-<attempt>`): a verification that a killed
 * server left running writes into its own directory, never into the next attempt's. Those of
 * earlier attempts of the run are removed first.
 */
export async function openScratch(
  place: { dir: string; repository: string; runId: string; attempt: number },
  commit: string,
  git: WorktreeGit,
): Promise<Scratch> {
  // What earlier attempts left (a killed server's): found on disk, not by counting attempts, so a
  // long-failing entry does not remove more directories each time it is tried.
  const left = (await readdir(place.dir).catch(() => [] as string[])).filter((name) => name.startsWith(`${place.runId}-`));
  for (const name of left) await removeScratch(place.repository, join(place.dir, name), git);
  const path = join(place.dir, `${place.runId}-${place.attempt}`);
  await removeScratch(place.repository, path, git);
  await mkdir(place.dir, { recursive: true });
  // No hooks: a repository-relative `core.hooksPath` (.githooks, .husky) would run the candidate's own
  // post-checkout hook here, outside any sandbox, before verify.
  await runGit(['-c', 'core.hooksPath=/dev/null', 'worktree', 'add', '--detach', '--force', '--', path, commit], { ...git, cwd: place.repository });
  return { path, remove: () => removeScratch(place.repository, path, git) };
}
