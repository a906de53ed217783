import { realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * `path` with its symbolic links resolved, as far as it exists (a path that does not exist yet keeps
 * its last parts): the sandboxes mount real paths, and Codex's bubblewrap cannot make a mount point
 * below a symbolic link ("Can't mkdir parents", measured with a HOME reached through one). The
 * refusals a sandbox reports are matched against the same real paths (denials.ts).
 */
export function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realPathOf(parent), basename(path));
  }
}
