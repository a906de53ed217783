/**
 * A merge of two commits computed in git's object store alone (`git merge-tree --write-tree`, git ≥
 * 2.38): no checkout, index or ref is touched, so it can be asked of any two commits at any time —
 * by a landing (merge.ts) and by the conflict forecast (conflict-pairs.ts) alike.
 */

import { GitError, runGit } from '../workspaces/index.js';

/** The merged tree, or the paths git could not merge (each once, in git's order). */
export type MergeTreeOutcome = { clean: true; tree: string } | { clean: false; tree: string; files: string[] };

/** git's exit code for a usage error: `merge-tree --write-tree` came with git 2.38, and an older git does not know it. */
export const GIT_USAGE_EXIT = 129;

/**
 * Merges `theirs` into `ours`. Exit 1 is a conflict: the tree (with conflict markers, never used),
 * then the conflicted files, NUL-separated (`-z`: any byte a path may hold survives). Any other
 * failure (an older git, unrelated histories, an unknown commit) rejects with the GitError.
 */
export async function mergeTree(
  ours: string,
  theirs: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number | undefined },
): Promise<MergeTreeOutcome> {
  try {
    const out = await runGit(['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', ours, theirs], options);
    return { clean: true, tree: out.split('\0')[0]! };
  } catch (error) {
    const exit = error instanceof GitError ? error.exit : undefined;
    if (exit?.code !== 1) throw error;
    const fields = exit.stdout.split('\0');
    const end = fields.indexOf('', 1);
    // A path with several conflicting stages is listed once per stage.
    return { clean: false, tree: fields[0]!, files: [...new Set(fields.slice(1, end < 0 ? undefined : end))] };
  }
}
