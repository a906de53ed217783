/**
 * svc's commits in a run's worktree (docs/decisions.md, "A commit per node, and the diff"): after a node, what
 * it left in the worktree becomes one commit on the run's branch, so the next node and an approval
 * gate start from a clean tree and each node's change can be shown on its own. Only ever called on
 * a worktree svc made (`svc/<runId>`), never in a directory of the user's.
 */

import { isPlaceholder } from '../sandbox/index.js';
import { runGit } from './git.js';
import type { WorktreeGit } from './worktrees.js';

/** The author and committer when the repository has no identity of its own. */
export const SVC_IDENTITY = { name: 'svc', email: 'svc@localhost' } as const;

/** What a range of commits changed, as `git diff --shortstat` counts it. */
export interface ChangeCounts {
  files: number;
  insertions: number;
  deletions: number;
}

/**
 * The checked-out commit, whether anything is left uncommitted (untracked files included, ignored
 * ones not) and the sandbox placeholders among the untracked files (sandbox/placeholders.ts: never
 * a change of the node's), in one `git status`.
 */
async function worktreeState(cwd: string, git: WorktreeGit): Promise<{ head: string; dirty: boolean; placeholders: string[] }> {
  const out = await runGit(['status', '--porcelain=v2', '--branch', '-z'], { ...git, cwd });
  let head = '';
  let changes = 0;
  const placeholders: string[] = [];
  for (const entry of out.split('\0')) {
    if (entry.startsWith('# branch.oid ')) head = entry.slice('# branch.oid '.length);
    else if (/^[12u?] /.test(entry)) {
      changes += 1;
      if (entry.startsWith('? ') && (await isPlaceholder(cwd, entry.slice(2)))) placeholders.push(entry.slice(2));
    }
  }
  return { head, dirty: changes > placeholders.length, placeholders };
}

/** The commit checked out in `cwd`. */
export async function headOf(cwd: string, git: WorktreeGit): Promise<string> {
  return (await runGit(['rev-parse', 'HEAD'], { ...git, cwd })).trim();
}

/**
 * `-c user.name/-c user.email` when git has no identity for the repository (its config, the
 * user's, the system's): git would refuse to commit, or make one up from the host name.
 */
export async function identityArgs(cwd: string, git: WorktreeGit): Promise<string[]> {
  const lines = await runGit(['config', '--get-regexp', '^user\\.(name|email)$'], { ...git, cwd }).catch(() => '');
  const set = new Set(lines.split('\n').flatMap((line) => (/^user\.(name|email) \S/.test(line) ? [line.slice(0, line.indexOf(' '))] : [])));
  if (set.has('user.name') && set.has('user.email')) return [];
  return ['-c', `user.name=${SVC_IDENTITY.name}`, '-c', `user.email=${SVC_IDENTITY.email}`];
}

/**
 * Of `paths`, those .gitignore does not hide: `add -A` skips the others anyway, and git refuses an
 * exclusion pathspec naming an ignored file (a copied `.env.local` is usually ignored) as it refuses
 * adding one.
 */
async function notIgnored(cwd: string, paths: string[], git: WorktreeGit): Promise<string[]> {
  const kept: string[] = [];
  // One path a call (they are few: the copies, a sandbox's placeholders): `-q` answers by exit code
  // alone (0: ignored), where a listing would quote unusual names. check-ignore takes no pathspec magic.
  for (const path of paths) {
    const ignored = await runGit(['check-ignore', '-q', '--', path], { ...git, cwd }).then(
      () => true,
      () => false,
    );
    if (!ignored) kept.push(path);
  }
  return kept;
}

/**
 * Commits everything uncommitted in `cwd` but `exclude` (`git add -A`: new files too, .gitignore respected) with
 * `subject` and the trailer `Svc-Run: <runId>`. svc's commits are bookkeeping: no hook of the
 * repository runs for them (`core.hooksPath=/dev/null`: a linter or test suite in `pre-commit`
 * would fail nodes for what the workflow checks in nodes of its own, and a `prepare-commit-msg`
 * that asks on /dev/tty has nobody to ask), and they are never signed (a signing key could ask for
 * a passphrase nobody is there to type). Resolves to HEAD afterwards and the commit made, or null
 * when nothing was left to commit; rejects with git's message when git refuses.
 */
export async function commitAll(
  cwd: string,
  message: { subject: string; runId: string },
  git: WorktreeGit,
  exclude: readonly string[] = [],
): Promise<{ head: string; commit: string | null }> {
  const options = { ...git, cwd };
  const before = await worktreeState(cwd, git);
  if (!before.dirty) return { head: before.head, commit: null };
  // `exclude`: files copied in by the worktree setup (a `.env.local`), never committed on the branch
  // that may be pushed; and the empty files a sandbox still running in this worktree has mounted.
  const left = await notIgnored(cwd, [...exclude, ...before.placeholders], git);
  await runGit(['add', '-A', ...(left.length ? ['--', '.', ...left.map((path) => `:(exclude,literal)${path}`)] : [])], options);
  const identity = await identityArgs(cwd, git);
  try {
    await runGit(
      [
        ...identity,
        '-c',
        'commit.gpgsign=false',
        '-c',
        'core.hooksPath=/dev/null',
        'commit',
        '--quiet',
        '--no-verify',
        '-m',
        message.subject,
        '-m',
        `Svc-Run: ${message.runId}`,
      ],
      options,
    );
  } catch (error) {
    // A change `add -A` does not stage (a submodule's own work tree) leaves nothing to commit.
    const staged = await runGit(['diff', '--cached', '--name-only'], options).catch(() => 'unknown');
    if (staged.trim() === '') return { head: before.head, commit: null };
    throw error;
  }
  const head = await headOf(cwd, git);
  return { head, commit: head };
}

/** Files changed, lines inserted and deleted from `from` to `to` (renames found; binary files count as files only). */
export async function changeCounts(cwd: string, from: string, to: string, git: WorktreeGit): Promise<ChangeCounts> {
  const out = await runGit(['diff', '--shortstat', '--no-color', '--no-ext-diff', '-M', from, to, '--'], { ...git, cwd });
  const count = (pattern: RegExp) => Number(pattern.exec(out)?.[1] ?? 0);
  return { files: count(/(\d+) files? changed/), insertions: count(/(\d+) insertions?\(\+\)/), deletions: count(/(\d+) deletions?\(-\)/) };
}

/** The worktree git the engine commits nodes with (runs/executor/node-commits.ts `WorktreeCommits`). */
export function worktreeCommits(git: WorktreeGit) {
  return {
    head: (cwd: string) => headOf(cwd, git),
    commitAll: (cwd: string, message: { subject: string; runId: string }, exclude?: readonly string[]) => commitAll(cwd, message, git, exclude),
    changes: (cwd: string, from: string, to: string) => changeCounts(cwd, from, to, git),
  };
}
