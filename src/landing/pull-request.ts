/**
 * A pull request for a run's branch, opened by the GitHub CLI (docs/decisions.md, "Landing a run: merge, push, pull request"): `gh pr create` in the run's worktree, never able to ask anything (no stdin, prompts off),
 * stopped after the git time limit. svc keeps no GitHub token of its own: gh's login is the user's.
 */

import { spawnGroup } from '../processes/index.js';
import { DomainError } from '../shared/errors.js';
import { withoutCredentials } from './merge.js';
import type { WorktreeGit } from '../workspaces/index.js';

export interface PullRequestRequest {
  /** `SVC_GH_BIN`. */
  ghBin: string;
  cwd: string;
  head: string;
  base: string;
  title: string;
  body: string;
  draft: boolean;
}

const HOW_TO_INSTALL = 'Install the GitHub CLI (https://cli.github.com) and run `gh auth login`, or point SVC_GH_BIN at it.';

/** gh's exit code when it has no credentials (`gh help exit-codes`). */
const GH_AUTH_EXIT = 4;

/** Runs gh and resolves with the pull request's URL (the last URL it prints); 409 `gh_unavailable` or `pr_failed` otherwise. */
export async function createPullRequest(request: PullRequestRequest, git: WorktreeGit): Promise<{ url: string }> {
  // `--flag=value`: a title or body starting with `-` is never read as a flag of its own.
  const args = ['pr', 'create', `--head=${request.head}`, `--base=${request.base}`, `--title=${request.title}`, `--body=${request.body}`];
  if (request.draft) args.push('--draft');
  const env = { ...git.env, GH_PROMPT_DISABLED: '1', GH_NO_UPDATE_NOTIFIER: '1', NO_COLOR: '1', GIT_TERMINAL_PROMPT: '0' };
  let gh: ReturnType<typeof spawnGroup>;
  try {
    gh = spawnGroup(request.ghBin, args, { cwd: request.cwd, env });
  } catch (error) {
    throw new DomainError('gh_unavailable', `The GitHub CLI '${request.ghBin}' could not be started (${(error as Error).message}). ${HOW_TO_INSTALL}`);
  }
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  gh.child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
  gh.child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
  const timer = setTimeout(() => void gh.terminate(2000), git.timeoutMs ?? 5 * 60_000);
  let result: { code: number | null; signal: NodeJS.Signals | null };
  try {
    result = await gh.done;
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    const why = missing ? `'${request.ghBin}' was not found` : `'${request.ghBin}' could not be started (${(error as Error).message})`;
    throw new DomainError('gh_unavailable', `The GitHub CLI is needed to open a pull request: ${why}. ${HOW_TO_INSTALL}`);
  } finally {
    clearTimeout(timer);
  }
  const stdout = Buffer.concat(out).toString('utf8');
  const stderr = withoutCredentials(Buffer.concat(err).toString('utf8').trim());
  if (result.code === GH_AUTH_EXIT || /gh auth login/.test(stderr)) {
    throw new DomainError('gh_unavailable', `The GitHub CLI is not logged in: run \`gh auth login\`, then try again. (${stderr})`);
  }
  const url = stdout.match(/https?:\/\/\S+/g)?.at(-1);
  if (result.code !== 0 || !url) {
    const status = result.code === 0 ? 'printed no URL' : result.signal ? `was stopped (${result.signal})` : `exited ${result.code}`;
    throw new DomainError('pr_failed', `gh pr create ${status}: ${stderr || withoutCredentials(stdout.trim()) || 'no message'}`);
  }
  return { url };
}
