/**
 * Landing a run's branch (docs/decisions.md, "Landing a run: merge, push, pull request"): merging `svc/<runId>` into a branch
 * of the repository its worktree belongs to, without ever leaving that repository half-merged. The
 * result is computed from git's objects alone (`merge-tree --write-tree`, `commit-tree`), so a
 * conflict touches no ref, index or working tree; then the branch moves by compare-and-set
 * (`update-ref <new> <old>`), or, when it is checked out somewhere, by a fast-forward of that
 * clean checkout to the computed commit.
 */

import { DomainError } from '../shared/errors.js';
import { changesAlreadyIn, identityArgs, GitError, runGit, type WorktreeGit } from '../workspaces/index.js';
import { GIT_USAGE_EXIT, mergeTree, type MergeTreeOutcome } from './merge-tree.js';

export const MERGE_STRATEGIES = ['merge', 'squash', 'fast-forward'] as const;
export type MergeStrategy = (typeof MERGE_STRATEGIES)[number];

export interface MergeRequest {
  /** The repository holding both branches: the user's directory, or svc's clone. */
  repository: string;
  /** The run's branch, `svc/<runId>`. */
  branch: string;
  into: string;
  strategy: MergeStrategy;
  /** The commit message's subject and body (a merge or a squash); `Svc-Run: <runId>` is added. */
  message: string;
  runId: string;
}

export interface MergeResult {
  into: string;
  /** The commit `into` points at now: the merge, or, already landed, where it already was. */
  commit: string;
  strategy: MergeStrategy;
  /** The branch was in `into` already (merged, squashed or cherry-picked by hand): nothing was changed. */
  alreadyLanded: boolean;
}

/** svc's own git runs no hook of the repository and signs nothing: nobody is there to answer a passphrase or a hook's question. */
const QUIET_GIT = ['-c', 'core.hooksPath=/dev/null', '-c', 'commit.gpgsign=false'];

/** The commit `ref` names, or undefined when there is no such branch. */
async function commitOf(ref: string, options: WorktreeGit & { cwd: string }): Promise<string | undefined> {
  const out = await runGit(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], options).catch(() => '');
  return out.trim() || undefined;
}

async function isAncestor(ancestor: string, of: string, options: WorktreeGit & { cwd: string }): Promise<boolean> {
  return runGit(['merge-base', '--is-ancestor', ancestor, of], options).then(
    () => true,
    () => false,
  );
}

/** The working tree (main or linked) that has `refs/heads/<branch>` checked out, if any. */
export async function checkoutOf(branch: string, options: WorktreeGit & { cwd: string }): Promise<string | undefined> {
  const out = await runGit(['worktree', 'list', '--porcelain', '-z'], options);
  let path: string | undefined;
  for (const field of out.split('\0')) {
    if (field.startsWith('worktree ')) path = field.slice('worktree '.length);
    else if (field === `branch refs/heads/${branch}`) return path;
  }
  return undefined;
}

/**
 * The tracked files a checkout has changes of (staged, unstaged, conflicted). Untracked files do
 * not count: a fast-forward leaves them alone, and refuses when it would write over one.
 */
export async function changedFiles(dir: string, git: WorktreeGit): Promise<string[]> {
  const out = await runGit(['status', '--porcelain=v1', '-z', '--untracked-files=no'], { ...git, cwd: dir });
  const files: string[] = [];
  const fields = out.split('\0');
  for (let i = 0; i < fields.length; i += 1) {
    const entry = fields[i]!;
    if (entry.length < 4) continue;
    files.push(entry.slice(3));
    // A rename or copy is followed by the path it had.
    if (entry[0] === 'R' || entry[0] === 'C') i += 1;
  }
  return files;
}

/** The tree of merging `theirs` into `ours`, written as objects only; 409 `merge_conflict` with the files when they conflict. */
async function mergedTree(ours: string, theirs: string, request: MergeRequest, options: WorktreeGit & { cwd: string }): Promise<string> {
  let outcome: MergeTreeOutcome;
  try {
    outcome = await mergeTree(ours, theirs, options);
  } catch (error) {
    const exit = error instanceof GitError ? error.exit : undefined;
    const why = exit?.code === GIT_USAGE_EXIT ? 'merging without a working tree needs git 2.38 or later' : (error as Error).message;
    throw new DomainError('merge_failed', `git could not merge ${request.branch} into ${request.into}: ${why}`);
  }
  if (outcome.clean) return outcome.tree;
  const { files } = outcome;
  throw new DomainError(
    'merge_conflict',
    `${request.branch} conflicts with ${request.into} in ${files.join(', ')}; nothing was changed. Merge it by hand, or rebase the run's branch.`,
    { files },
  );
}

async function commitTree(tree: string, parents: string[], request: MergeRequest, options: WorktreeGit & { cwd: string }): Promise<string> {
  const identity = await identityArgs(options.cwd, options);
  const parentArgs = parents.flatMap((parent) => ['-p', parent]);
  const args = [...identity, ...QUIET_GIT, 'commit-tree', '--no-gpg-sign', tree, ...parentArgs, '-m', request.message, '-m', `Svc-Run: ${request.runId}`];
  return (await runGit(args, options)).trim();
}

/** The commit `into` should point at afterwards. */
async function resultCommit(old: string, head: string, request: MergeRequest, options: WorktreeGit & { cwd: string }): Promise<string> {
  if (request.strategy === 'fast-forward') {
    if (await isAncestor(old, head, options)) return head;
    throw new DomainError(
      'not_fast_forward',
      `${request.into} has commits that ${request.branch} does not have, so it cannot fast-forward; merge or squash instead.`,
      { into: request.into, branch: request.branch },
    );
  }
  const tree = await mergedTree(old, head, request, options);
  return commitTree(tree, request.strategy === 'squash' ? [old] : [old, head], request, options);
}

/** The two tips a merge starts from: the run's branch (409 `worktree_gone`) and `into` (409 `branch_not_found`). */
export async function branchTips(request: MergeRequest, git: WorktreeGit): Promise<{ head: string; old: string }> {
  const options = { ...git, cwd: request.repository };
  const head = await commitOf(`refs/heads/${request.branch}`, options);
  if (!head) throw new DomainError('worktree_gone', `${request.branch} is no longer in ${request.repository}; it was cleaned up.`);
  const old = await commitOf(`refs/heads/${request.into}`, options);
  if (!old) throw new DomainError('branch_not_found', `${request.repository} has no branch '${request.into}' to merge into.`);
  return { head, old };
}

/**
 * Landed by hand already (issue 32): every commit of the branch is in `into` (at `old`), or merging
 * it would change nothing there (a squash or cherry-pick).
 */
export async function alreadyIn(head: string, old: string, request: MergeRequest, git: WorktreeGit): Promise<boolean> {
  const options = { ...git, cwd: request.repository };
  return (await isAncestor(head, old, options)) || (await changesAlreadyIn(old, head, options));
}

/** Whether `commit` is in `branch`'s history (the landing queue asks whether its tested commit landed). */
export async function branchContains(repository: string, branch: string, commit: string, git: WorktreeGit): Promise<boolean> {
  return isAncestor(commit, `refs/heads/${branch}`, { ...git, cwd: repository });
}

/** Where `into` is checked out with changes not committed: 409 `dirty_checkout` naming them; resolves to the checkout, if any. */
export async function assertCleanCheckout(request: Pick<MergeRequest, 'repository' | 'into'>, git: WorktreeGit): Promise<string | undefined> {
  const checkout = await checkoutOf(request.into, { ...git, cwd: request.repository });
  if (!checkout) return undefined;
  const files = await changedFiles(checkout, git);
  if (files.length) {
    throw new DomainError(
      'dirty_checkout',
      `${request.into} is checked out in ${checkout} with changes not committed (${files.join(', ')}); commit or stash them, then merge again. Nothing was changed.`,
      { path: checkout, files },
    );
  }
  return checkout;
}

/** The commit `into` should point at, computed from git's objects alone: 409 `merge_conflict` or `not_fast_forward` else. */
export function landingCommit(old: string, head: string, request: MergeRequest, git: WorktreeGit): Promise<string> {
  return resultCommit(old, head, request, { ...git, cwd: request.repository });
}

/**
 * Merges `request.branch` into `request.into` in `request.repository`. When `into` is checked out
 * (the user's directory, or one of their worktrees), that checkout must be clean (409
 * `dirty_checkout` naming its changed files, nothing touched) and is fast-forwarded to the merge;
 * otherwise only the branch moves, and only if it still points where it pointed when the merge was
 * computed (409 `into_moved` else).
 */
export async function mergeBranch(request: MergeRequest, git: WorktreeGit): Promise<MergeResult> {
  const { head, old } = await branchTips(request, git);
  // Landed by hand already: that is the outcome asked for, not a refusal.
  if (await alreadyIn(head, old, request, git)) return { into: request.into, commit: old, strategy: request.strategy, alreadyLanded: true };
  const checkout = await assertCleanCheckout(request, git);
  const commit = await landingCommit(old, head, request, git);
  await moveBranch(request, old, commit, checkout, git);
  return { into: request.into, commit, strategy: request.strategy, alreadyLanded: false };
}

/**
 * Moves `into` from `old` to `commit` by compare-and-set: the clean checkout that has it (`checkout`)
 * fast-forwarded, or the ref alone updated only while it still points at `old`. 409 `into_moved`
 * when it moved meanwhile, `dirty_checkout` when the checkout refuses; nothing changed then.
 */
export async function moveBranch(
  request: Pick<MergeRequest, 'repository' | 'into' | 'strategy' | 'branch' | 'runId'>,
  old: string,
  commit: string,
  checkout: string | undefined,
  git: WorktreeGit,
): Promise<void> {
  const options = { ...git, cwd: request.repository };
  const reflog = `svc: ${request.strategy} ${request.branch} (run ${request.runId})`;
  if (checkout) {
    try {
      // On a clean checkout a fast-forward only adds what the merge brings; a commit made there
      // meanwhile, or an untracked file in the way, makes it refuse rather than lose anything.
      // Only from `old`: a checkout whose branch moved is another race, told as update-ref's.
      if ((await commitOf(`refs/heads/${request.into}`, options)) !== old) throw new Error(`${request.into} is no longer at ${old}`);
      // The checkout may have switched branch since it was found: only its having `into` checked out
      // makes the fast-forward move `into` (else another branch would move and `into` would not).
      const head = (await runGit(['symbolic-ref', '-q', 'HEAD'], { ...git, cwd: checkout }).catch(() => '')).trim();
      if (head !== `refs/heads/${request.into}`)
        throw new Error(`the checkout in ${checkout} no longer has ${request.into} checked out (${head || 'a detached HEAD'})`);
      // --no-overwrite-ignore: a file the user's .gitignore hides (a local .env, a config) is theirs;
      // a landing that would replace it refuses instead.
      await runGit([...QUIET_GIT, 'merge', '--ff-only', '--no-overwrite-ignore', '--quiet', '--no-stat', '--no-verify', commit], {
        ...git,
        cwd: checkout,
        env: { ...git.env, GIT_REFLOG_ACTION: reflog },
      });
      const now = await commitOf(`refs/heads/${request.into}`, options);
      if (now !== commit) throw new Error(`${request.into} is at ${now} after the fast-forward, not at ${commit}`);
    } catch (error) {
      const message = (error as Error).message;
      // A commit made in the checkout since the merge was computed: the same race as update-ref's.
      if ((await commitOf(`refs/heads/${request.into}`, options)) !== old) throw intoMoved(request, message);
      const files = message.split('\n').flatMap((line) => (line.startsWith('\t') ? [line.trim()] : []));
      throw new DomainError('dirty_checkout', `${request.into}'s checkout in ${checkout} refused the merge; nothing was changed. git said: ${message}`, {
        path: checkout,
        files,
      });
    }
  } else {
    try {
      await runGit(['update-ref', '-m', reflog, `refs/heads/${request.into}`, commit, old], options);
    } catch (error) {
      throw intoMoved(request, (error as Error).message);
    }
  }
}

const intoMoved = (request: Pick<MergeRequest, 'into'>, gitSaid: string) =>
  new DomainError('into_moved', `${request.into} moved while the merge was computed; nothing was merged. Try again. (${gitSaid})`);

/** A URL's `user:password@` taken out, wherever it appears in a message. */
export function withoutCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1');
}

/**
 * Pushes `branch` to `to` on `remote` (a remote's name or a URL; `to` is the same name by default);
 * 409 `push_failed` with git's message, credentials taken out. Never forced: a remote branch
 * that moved to a commit `branch` does not contain is refused by git (not a fast-forward), answered
 * `push_failed` with git's words.
 */
export async function pushBranch(
  repository: string,
  remote: string,
  branch: string,
  git: WorktreeGit,
  to = branch,
): Promise<{ remote: string; branch: string }> {
  try {
    await runGit(['push', '--porcelain', '--', remote, `refs/heads/${branch}:refs/heads/${to}`], { ...git, cwd: repository });
  } catch (error) {
    throw new DomainError(
      'push_failed',
      `Pushing ${branch} to ${withoutCredentials(remote)}${to === branch ? '' : ` ${to}`} failed: ${withoutCredentials((error as Error).message)}`,
      {
        remote: withoutCredentials(remote),
        branch,
      },
    );
  }
  return { remote: withoutCredentials(remote), branch: to };
}
