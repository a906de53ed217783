/**
 * A pull request for a run's branch, opened by the GitHub CLI (docs/decisions.md, "Landing a run:
 * merge, push, pull request"): `gh pr create` in the run's worktree, as gh.ts runs gh.
 */

import { DomainError } from '../shared/errors.js';
import { ghFailure, runGh } from './gh.js';
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

/** Runs gh and resolves with the pull request's URL (the last URL it prints); 409 `gh_unavailable` or `pr_failed` otherwise. */
export async function createPullRequest(request: PullRequestRequest, git: WorktreeGit): Promise<{ url: string }> {
  // `--flag=value`: a title or body starting with `-` is never read as a flag of its own.
  const args = ['pr', 'create', `--head=${request.head}`, `--base=${request.base}`, `--title=${request.title}`, `--body=${request.body}`];
  if (request.draft) args.push('--draft');
  const result = await runGh(request.ghBin, args, { cwd: request.cwd, git, why: 'open a pull request' });
  const url = result.stdout.match(/https?:\/\/\S+/g)?.at(-1);
  if (result.code !== 0 || !url) {
    throw new DomainError('pr_failed', result.code === 0 ? `gh pr create printed no URL: ${result.stderr || 'no message'}` : ghFailure('gh pr create', result));
  }
  return { url };
}
