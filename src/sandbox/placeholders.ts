/**
 * The empty files a sandbox leaves in the directories it lets a command write (docs/decisions.md,
 * "Bash nodes in a sandbox"). The sandbox runtime (and Claude Code's sandbox, built on it)
 * write-protects shell and tool configuration in the working directory of the process that starts
 * the sandbox — svc's own, so a run in the directory `svc serve` was started in: where such a file
 * does not exist it mounts an empty read-only one in its place while a command runs, on the real
 * directory, where git sees it. It removes them when no command of the process needs them any
 * more: not yet when one node ends while another runs, and never after a crash. So svc leaves them
 * out of its commits, and removes what a stopped server left.
 */

import { execFile } from 'node:child_process';
import { lstat, readdir, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The runtime's write-protected names (0.0.83: `DANGEROUS_FILES` and the directories), each
 * mounted as an empty file — or, for the nested ones, below an empty directory — where absent.
 */
export const PLACEHOLDER_FILES: readonly string[] = [
  '.gitconfig',
  '.gitmodules',
  '.bashrc',
  '.bash_profile',
  '.zshrc',
  '.zprofile',
  '.profile',
  '.ripgreprc',
  '.mcp.json',
  '.vscode',
  '.idea',
  '.claude/commands',
  '.claude/agents',
];

/** The directories a nested placeholder is made in, removed when empty (git shows none of them). */
const PLACEHOLDER_DIRS: readonly string[] = ['.claude/commands', '.claude/agents', '.claude', '.vscode', '.idea'];

/** Whether `path` (relative to a writable root) is a placeholder: one of the names, at the root, an empty file. */
export async function isPlaceholder(root: string, path: string): Promise<boolean> {
  if (!PLACEHOLDER_FILES.includes(path)) return false;
  const stat = await lstat(join(root, path)).catch(() => undefined);
  return stat !== undefined && stat.isFile() && stat.size === 0;
}

/**
 * Removes the placeholders at `root` that are `untracked` (paths git does not know, relative to
 * it): empty files of those names, then empty directories of theirs. A file with content, or one
 * the repository holds, is the user's and stays. Resolves to what was removed.
 */
export async function removePlaceholders(root: string, untracked: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  for (const path of untracked) {
    if (!(await isPlaceholder(root, path))) continue;
    await unlink(join(root, path)).then(
      () => removed.push(path),
      () => undefined,
    );
  }
  for (const dir of PLACEHOLDER_DIRS) {
    const entries = await readdir(join(root, dir)).catch(() => undefined);
    if (entries?.length !== 0) continue;
    await rmdir(join(root, dir)).then(
      () => removed.push(`${dir}/`),
      () => undefined,
    );
  }
  return removed;
}

/**
 * What a stopped server's sandboxes left in a run's directory: the placeholders git does not track,
 * removed (a tracked file of the same name is the repository's and stays, as does one with
 * content). Resolves to what was removed; nothing outside a git checkout, where git cannot say.
 */
export async function removeLeftPlaceholders(worktree: string): Promise<string[]> {
  const untracked = await new Promise<string[] | undefined>((resolve) => {
    execFile('git', ['ls-files', '-z', '--others', '--', ...PLACEHOLDER_FILES], { cwd: worktree, timeout: 10_000 }, (error, stdout) =>
      resolve(error ? undefined : stdout.split('\0').filter(Boolean)),
    );
  });
  return untracked ? removePlaceholders(worktree, untracked) : [];
}
