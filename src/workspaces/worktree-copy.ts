/**
 * `copy:` of `.svc/worktree.yaml` (docs/decisions.md, "Worktree setup and $SVC_PORT"): untracked
 * files (`.env.local`, a local config) brought from the workspace's checkout into a new worktree.
 * The paths come from the repository, so each is held to it: the file read must really be inside
 * the checkout (no symlink, itself or a folder on the way, leading out), be a regular file, and the
 * place written must really be inside the worktree (a committed symlinked folder could lead a write
 * anywhere).
 */

import { copyFile, lstat, mkdir, realpath, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { WORKTREE_CONFIG_FILE } from './worktree-config.js';
import { isInside } from './worktrees.js';

/** A copy refused: the path and why. */
export class CopyRefusedError extends Error {
  constructor(path: string, why: string) {
    super(`${WORKTREE_CONFIG_FILE}: copy: '${path}' ${why}`);
    this.name = 'CopyRefusedError';
  }
}

export interface CopyOutcome {
  /** Copied, in the order listed. */
  copied: string[];
  /** Listed but not present in the checkout (a fresh clone has none of a user's local files). */
  missing: string[];
}

const missingCode = (error: unknown) => ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '');

/** Checks every path first, then copies: a refusal leaves the worktree without any of them. */
export async function copyIntoWorktree(checkout: string, worktree: string, paths: readonly string[]): Promise<CopyOutcome> {
  const [checkoutReal, worktreeReal] = await Promise.all([realpath(checkout), realpath(worktree)]);
  const planned: Array<{ path: string; from: string; to: string }> = [];
  const missing: string[] = [];
  for (const path of paths) {
    const from = join(checkout, path);
    let real: string;
    try {
      real = await realpath(from);
    } catch (error) {
      if (!missingCode(error)) throw error;
      missing.push(path);
      continue;
    }
    if (!isInside(real, checkoutReal)) throw new CopyRefusedError(path, 'leads outside the repository (a symlink)');
    if (!(await stat(real)).isFile()) throw new CopyRefusedError(path, 'is not a regular file');
    planned.push({ path, from: real, to: join(worktree, path) });
  }
  for (const { path, to } of planned) {
    await mkdir(dirname(to), { recursive: true });
    if (!isInside(join(await realpath(dirname(to)), 'x'), worktreeReal)) throw new CopyRefusedError(path, 'would be written outside the worktree (a symlink)');
    const existing = await lstat(to).catch((error: unknown) => (missingCode(error) ? null : Promise.reject(error)));
    if (existing && !existing.isFile()) throw new CopyRefusedError(path, 'is in the worktree already, and not as a regular file');
  }
  for (const { from, to } of planned) await copyFile(from, to);
  return { copied: planned.map(({ path }) => path), missing };
}
