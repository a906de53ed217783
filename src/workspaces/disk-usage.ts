/**
 * How many bytes a directory tree takes, like `du -sb` (apparent sizes of every entry, the
 * directories' own included): walked with `lstat`, so a symlink counts as itself and is never
 * followed out of the tree, and with at most `concurrency` file-system calls in flight, so a
 * worktree of a million files neither blocks the event loop nor opens a million handles at once.
 */

import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

export const DISK_USAGE_CONCURRENCY = 16;

/** The tree's size in bytes; 0 when `root` does not exist. Entries that vanish or cannot be read while walked are skipped. */
export async function directoryBytes(root: string, concurrency = DISK_USAGE_CONCURRENCY): Promise<number> {
  let total = 0;
  const pending: string[] = [root];
  let active = 0;
  return new Promise<number>((resolve) => {
    const next = (): void => {
      while (active < concurrency && pending.length > 0) {
        const path = pending.pop()!;
        active++;
        void visit(path).finally(() => {
          active--;
          if (pending.length === 0 && active === 0) resolve(total);
          else next();
        });
      }
    };
    const visit = async (path: string): Promise<void> => {
      const stats = await lstat(path).catch(() => undefined);
      if (!stats) return;
      total += stats.size;
      if (!stats.isDirectory()) return;
      const names = await readdir(path).catch(() => [] as string[]);
      for (const name of names) pending.push(join(path, name));
    };
    next();
  });
}

/** How many of `paths` are directories, and their total size; one walk at a time (each is bounded already, and several would only share the disk). */
export async function worktreesOnDisk(paths: string[]): Promise<{ worktrees: number; bytes: number }> {
  let worktrees = 0;
  let bytes = 0;
  for (const path of paths) {
    const stats = await lstat(path).catch(() => undefined);
    if (!stats?.isDirectory()) continue;
    worktrees++;
    bytes += await directoryBytes(path);
  }
  return { worktrees, bytes };
}
