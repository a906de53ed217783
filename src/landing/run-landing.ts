/**
 * What can be done with a finished run's branch (docs/decisions.md, "Landing a run: merge, push, pull request"): merge it
 * into a branch of its workspace's repository (the user's directory for a path workspace, svc's
 * clone for a cloned one), push it, open a pull request for it. The git is landing.ts's and
 * pull-request.ts's; this picks the repository, the defaults and the directory gh runs in.
 */

import { isDirectory } from '../workspaces/local-repository.js';
import { mergeBranch, pushBranch, type MergeResult, type MergeStrategy } from './merge.js';
import { createPullRequest } from './pull-request.js';
import type { Environment, WorkspaceRecord } from '../workspaces/records.js';
import type { WorktreeGit } from '../workspaces/worktrees.js';

export interface LandingGit extends WorktreeGit {
  /** `SVC_GH_BIN`. */
  ghBin: string;
}

export class RunLanding {
  constructor(
    readonly environment: Environment,
    readonly workspace: Pick<WorkspaceRecord, 'id' | 'default_branch'>,
    private readonly git: LandingGit,
    /**
     * Runs work with the workspace's lock held (service.ts): two merges into one checkout at once
     * would both update its index and working tree, and the loser of the ref's compare-and-set
     * would leave its files staged there.
     */
    private readonly exclusive: <T>(work: () => Promise<T>) => Promise<T>,
  ) {}

  /** The branch a merge or pull request targets when none is named: the workspace's default branch. */
  get defaultBranch(): string {
    return this.workspace.default_branch;
  }

  merge(input: { into?: string | undefined; strategy: MergeStrategy; message: string }): Promise<MergeResult> {
    const { environment } = this;
    return this.exclusive(() =>
      mergeBranch(
        {
          repository: environment.repository,
          branch: environment.branch,
          into: input.into ?? this.defaultBranch,
          strategy: input.strategy,
          message: input.message,
          runId: environment.run_id,
        },
        this.git,
      ),
    );
  }

  push(remote: string): Promise<{ remote: string; branch: string }> {
    return pushBranch(this.environment.repository, remote, this.environment.branch, this.git);
  }

  /** Pushes the branch to `origin` (a pull request needs it there), then asks gh; the run's worktree is where gh finds its repository. */
  async pullRequest(input: { title: string; body: string; base?: string | undefined; draft: boolean }): Promise<{ url: string; base: string }> {
    await this.push('origin');
    const cwd = (await isDirectory(this.environment.path)) ? this.environment.path : this.environment.repository;
    const base = input.base ?? this.defaultBranch;
    const { url } = await createPullRequest(
      { ghBin: this.git.ghBin, cwd, head: this.environment.branch, base, title: input.title, body: input.body, draft: input.draft },
      this.git,
    );
    return { url, base };
  }
}
