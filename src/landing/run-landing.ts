/**
 * What can be done with a finished run's branch (docs/decisions.md, "Landing a run: merge, push,
 * pull request"): merge it into a branch of its workspace's repository (the user's directory for a
 * path workspace, svc's clone for a cloned one), push it, open a pull request for it. The git is
 * merge.ts's and pull-request.ts's; this picks the repository, the defaults and the directory gh
 * runs in, on the site the workspaces give (`WorkspaceService.landingSite`).
 */

import { isDirectory, type LandingSite } from '../workspaces/index.js';
import { mergeBranch, pushBranch, type MergeResult, type MergeStrategy } from './merge.js';
import { createPullRequest } from './pull-request.js';

export class RunLanding {
  constructor(private readonly site: LandingSite) {}

  /** The branch a merge or pull request targets when none is named: the workspace's default branch. */
  get defaultBranch(): string {
    return this.site.workspace.default_branch;
  }

  merge(input: { into?: string | undefined; strategy: MergeStrategy; message: string }): Promise<MergeResult> {
    const { environment, git } = this.site;
    return this.site.exclusive(() =>
      mergeBranch(
        {
          repository: environment.repository,
          branch: environment.branch,
          into: input.into ?? this.defaultBranch,
          strategy: input.strategy,
          message: input.message,
          runId: environment.run_id,
        },
        git,
      ),
    );
  }

  push(remote: string): Promise<{ remote: string; branch: string }> {
    const { environment, git } = this.site;
    return pushBranch(environment.repository, remote, environment.branch, git);
  }

  /** Pushes the branch to `origin` (a pull request needs it there), then asks gh; the run's worktree is where gh finds its repository. */
  async pullRequest(input: { title: string; body: string; base?: string | undefined; draft: boolean }): Promise<{ url: string; base: string }> {
    await this.push('origin');
    const { environment, git } = this.site;
    const cwd = (await isDirectory(environment.path)) ? environment.path : environment.repository;
    const base = input.base ?? this.defaultBranch;
    const { url } = await createPullRequest(
      { ghBin: git.ghBin, cwd, head: environment.branch, base, title: input.title, body: input.body, draft: input.draft },
      git,
    );
    return { url, base };
  }
}
