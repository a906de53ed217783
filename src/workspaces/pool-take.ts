/**
 * A new run taking a worktree from its workspace's pool (docs/decisions.md, "Setup cache and
 * pool"): one prepared at the run's base commit becomes the run's worktree as it is — moved to the
 * run's place (`git worktree move`) and put on the run's branch — so what its setup left is there,
 * and the setup step commits it as it would have after running the script. One prepared at another
 * commit is taken when the run's base has the same setup cache key: checked out at the base, with
 * everything untracked removed but the cache paths — what a cache hit at the base gives. Either
 * way the worktree carries a note (in its own git directory, where nothing of the run looks) that
 * the run's setup step reads: it was prepared ahead.
 */

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import * as z from 'zod';
import type { PooledPreparation } from '../runs/index.js';
import { runGit } from './git.js';
import type { PoolDirectory, PoolManifest } from './pool-directory.js';
import { cacheKeyAt } from './setup-cache.js';
import { readWorktreeConfigAt } from './worktree-config.js';
import type { WorktreeGit } from './worktrees.js';

/** Where the note of a pooled worktree is kept: its own git directory (`.git/worktrees/<name>/`), which moves with it and goes with it. */
const NOTE_FILE = 'svc-pool.json';

const PooledPreparationSchema = z.object({
  preparedAt: z.string(),
  preparedBy: z.enum(['setup', 'cache', 'none']),
  durationMs: z.number().nonnegative(),
  commit: z.string(),
  movedToBase: z.boolean(),
  cacheKey: z.string().nullable(),
  clean: z.boolean(),
});

export interface PoolTakeTarget {
  workspaceId: string;
  repository: string;
  /** The run's worktree path (`<home>/workspaces/<id>/worktrees/<runId>`). */
  path: string;
  branch: string;
  /** The commit the run starts from. */
  base: string;
}

/**
 * Takes a worktree for the run from the pool and makes it the run's: true when it did, false when
 * the pool had none that fits (or the move failed; the run's place is then free again, and the run
 * gets a worktree as without a pool).
 */
export async function takeFromPool(
  pool: PoolDirectory,
  // The pool's ready worktrees as the caller read them: one taken meanwhile fails its claim and is passed over.
  ready: readonly PoolManifest[],
  target: PoolTakeTarget,
  git: WorktreeGit,
  onError: (error: Error) => void,
): Promise<boolean> {
  const mine = ready.filter((manifest) => manifest.repository === target.repository);
  if (mine.length === 0) return false;
  return takeOneOf(pool, mine, target, git, onError);
}

/**
 * The common case, with one git process before the move: the run starts at the tip of a branch
 * (`branch`, the workspace's default) and a ready worktree was prepared at the commit it points to.
 * One `update-ref` transaction checks the branch still points there and creates the run's branch,
 * or does neither: it is refused when the branch moved or the run's branch exists already. The
 * commit taken, or null when it was refused or none fits (the caller goes the careful way).
 */
export async function takeAtBranchTip(
  pool: PoolDirectory,
  ready: readonly PoolManifest[],
  target: Omit<PoolTakeTarget, 'base'> & { from: string },
  git: WorktreeGit,
  onError: (error: Error) => void,
): Promise<string | null> {
  const mine = ready.filter((manifest) => manifest.repository === target.repository);
  const commit = mine[0]?.commit;
  if (!commit) return null;
  const input = `verify refs/heads/${target.from}\0${commit}\0create refs/heads/${target.branch}\0${commit}\0`;
  const created = await runGit(['update-ref', '--stdin', '-z'], { cwd: target.repository, ...git, input }).then(
    () => true,
    () => false,
  );
  if (!created) return null;
  const atTip = mine.filter((manifest) => manifest.commit === commit);
  if (await takeOneOf(pool, atTip, { ...target, base: commit }, git, onError, { branchMade: true })) return commit;
  // Every one was taken meanwhile (or failed): the branch made for it goes, as it came.
  await runGit(['update-ref', '-d', `refs/heads/${target.branch}`, commit], { cwd: target.repository, ...git }).catch(() => undefined);
  return null;
}

async function takeOneOf(
  pool: PoolDirectory,
  ready: readonly PoolManifest[],
  target: PoolTakeTarget,
  git: WorktreeGit,
  onError: (error: Error) => void,
  made: { branchMade?: true } = {},
): Promise<boolean> {
  const exact = ready.filter((manifest) => manifest.commit === target.base);
  const key = exact.length === ready.length ? null : await keyAtBase(target, git).catch(() => null);
  const sameKey = key === null ? [] : ready.filter((manifest) => manifest.commit !== target.base && manifest.cacheKey === key);
  for (const candidate of [...exact, ...sameKey]) {
    const manifest = await pool.claim(candidate.name);
    if (!manifest) continue; // taken meanwhile
    try {
      await makeRunWorktree(pool, manifest, target, git, made);
      return true;
    } catch (error) {
      onError(error as Error);
      // What the failed take left goes: the run's place and branch, and the pool's worktree.
      await runGit(['worktree', 'remove', '--force', '--force', '--', target.path], { cwd: target.repository, ...git }).catch(() => undefined);
      await runGit(['update-ref', '-d', `refs/heads/${target.branch}`], { cwd: target.repository, ...git }).catch(() => undefined);
      await pool.remove(manifest.name, target.repository);
      return false;
    }
  }
  return false;
}

/**
 * The setup cache key of a worktree at the run's base, from git's objects: null when the base's
 * `.svc/worktree.yaml` has no `setup:` with `cache:`, or a cache path holds files git tracks there
 * (the setup would not be replaced by the cache there either).
 */
async function keyAtBase(target: PoolTakeTarget, git: WorktreeGit): Promise<string | null> {
  const config = await readWorktreeConfigAt(target.repository, target.base, git);
  if (!config?.setup || !config.cache) return null;
  const tracked = await runGit(['ls-tree', '-r', '--name-only', '-z', target.base, '--', ...config.cache.paths], { cwd: target.repository, ...git });
  if (tracked.length > 0) return null;
  const request = { workspaceId: target.workspaceId, script: config.setup, keyFiles: config.cache.key, paths: config.cache.paths };
  return cacheKeyAt(request, target.repository, target.base, git.env);
}

async function makeRunWorktree(
  pool: PoolDirectory,
  manifest: PoolManifest,
  target: PoolTakeTarget,
  git: WorktreeGit,
  { branchMade }: { branchMade?: true },
): Promise<void> {
  const from = pool.pathOf(manifest.name);
  const [gitDir] = await Promise.all([gitDirOf(from), mkdir(dirname(target.path), { recursive: true })]);
  const inRepository = { cwd: target.repository, ...git };
  // `-f`: the run's path may still be registered from a worktree removed by hand (as worktrees.ts adds).
  const move = () => runGit(['worktree', 'move', '-f', '--', from, target.path], inRepository);
  const moved = manifest.commit !== target.base;
  const { preparedAt, preparedBy, durationMs, commit, cacheKey } = manifest;
  // Checked out elsewhere, what is left (the cache paths) may not be ignored there: the setup step looks.
  const note: PooledPreparation = { preparedAt, preparedBy, durationMs, commit, movedToBase: moved, cacheKey, clean: manifest.clean && !moved };
  if (!moved) {
    // The branch made where HEAD is, and HEAD put on it: plumbing, not `checkout -b`, which would
    // refresh the whole index of a worktree whose files have not changed. HEAD and the note live in
    // the worktree's own git directory, which does not move: they are written beside the move.
    if (!branchMade) await runGit(['update-ref', `refs/heads/${target.branch}`, target.base, ''], inRepository);
    // All three end before a failure is told: the clean-up that follows must not run beside the move.
    const done = await Promise.allSettled([
      move(),
      runGit(['--git-dir', gitDir, 'symbolic-ref', 'HEAD', `refs/heads/${target.branch}`], inRepository),
      writeFile(join(gitDir, NOTE_FILE), JSON.stringify(note)),
    ]);
    const failed = done.find((step): step is PromiseRejectedResult => step.status === 'rejected');
    if (failed) throw failed.reason;
  } else {
    await move();
    const inWorktree = { cwd: target.path, ...git };
    // The base's files, and of the untracked ones only the cache paths (`-x`: ignored files too; `-e` keeps them).
    await runGit(['checkout', '-q', '-f', '-b', target.branch, target.base], inWorktree);
    await runGit(['clean', '-ffdxq', ...manifest.cachePaths.flatMap((path) => ['-e', `/${escapePattern(path)}`])], inWorktree);
    await writeFile(join(gitDir, NOTE_FILE), JSON.stringify(note));
  }
}

/** A literal path as a gitignore pattern: its wildcard and special characters escaped. */
const escapePattern = (path: string) => path.replace(/[\\*?[\]!#]/g, '\\$&').replace(/ $/, '\\ ');

/**
 * A linked worktree's own git directory, from its `.git` file (`gitdir: <path>`), read rather than
 * asked of git: one process fewer on the way to a run's first node.
 */
async function gitDirOf(worktree: string): Promise<string> {
  const link = /^gitdir: (.+)$/m.exec(await readFile(join(worktree, '.git'), 'utf8'));
  if (!link) throw new Error(`${worktree}/.git names no git directory`);
  return resolve(worktree, link[1]!.trim());
}

/** How the run's worktree was prepared ahead, when it was taken from the pool; null otherwise (or when the note cannot be read). */
export async function readPoolNote(worktree: string): Promise<PooledPreparation | null> {
  const dir = await gitDirOf(worktree).catch(() => null);
  const text = dir && (await readFile(join(dir, NOTE_FILE), 'utf8').catch(() => null));
  if (!text) return null;
  try {
    const parsed = PooledPreparationSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
