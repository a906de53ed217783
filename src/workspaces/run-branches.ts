/**
 * A run's branch after its nodes (docs/decisions.md, "A commit per node, and the diff"): the diff
 * of its commits, and the site landing merges, pushes or proposes it from (landing/). Both read the
 * repository holding the branch in this server's home.
 */

import { environmentDiff, type DiffRange, type RunDiff } from './diff.js';
import type { Environment, WorkspaceRecord } from './records.js';
import { DomainError } from '../shared/errors.js';
import { isDirectory } from './local-repository.js';
import type { WorkspaceCore } from './workspace-core.js';
import type { WorktreeGit } from './worktrees.js';

/** A run's branch as landing finds it: its worktree's record, its workspace, git, and the workspace's lock. */
export interface LandingSite {
  readonly environment: Environment;
  readonly workspace: Pick<WorkspaceRecord, 'id' | 'default_branch'>;
  readonly git: WorktreeGit & { /** `SVC_GH_BIN`. */ ghBin: string };
  /**
   * Runs work with the workspace's lock held: two merges into one checkout at once would both
   * update its index and working tree, and the loser of the ref's compare-and-set would leave its
   * files staged there.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
}

/** A workspace's run branches as the conflict forecast reads them (landing/forecast.ts). */
export interface WorkspaceBranches {
  readonly workspace: Pick<WorkspaceRecord, 'id' | 'default_branch'>;
  /** The repository holding the branches and the target in this server's home: the registered directory, or svc's clone. */
  readonly repository: string;
  /** The branches of its runs' worktrees here, newest first. */
  readonly branches: readonly { runId: string; branch: string }[];
  /** Runs whose branch is in another server's home (shared database): only its servers can read it. */
  readonly elsewhere: readonly string[];
  readonly git: WorktreeGit;
}

export class RunBranches {
  constructor(private readonly core: WorkspaceCore) {}

  /**
   * The diff of a run's commits from `base` to `head`, read from git's objects in the repository
   * holding its branch (docs/decisions.md, "A commit per node, and the diff"). 409 `worktree_gone` once clean-up
   * removed the branch; with a shared database, 409 `worktree_elsewhere` on a server of another
   * home: the branch is in that home's repository, and only its servers read it (docs/scaling.md).
   */
  async runDiff(runId: string, range: DiffRange): Promise<RunDiff> {
    return environmentDiff(await this.#runEnvironment(runId), range, this.core.git);
  }

  /**
   * Where a run's branch is landed from (landing/run-landing.ts); 409 as `runDiff` when the branch is
   * not here. `sharedCheckout` (the landing queue, processed by one server for every home): a run of
   * a registered directory has its branch in that directory, which every server on its machine
   * reaches, whichever home its worktree is in.
   */
  async landingSite(runId: string, options: { sharedCheckout?: boolean } = {}): Promise<LandingSite> {
    const { core } = this;
    const environment = options.sharedCheckout ? await this.#sharedEnvironment(runId) : await this.#runEnvironment(runId);
    const workspace = await core.record(environment.workspace_id);
    return { environment, workspace, git: { ...core.git, ghBin: core.deps.ghBin ?? 'gh' }, exclusive: (work) => core.exclusive(workspace.id, work) };
  }

  async workspaceBranches(workspace: WorkspaceRecord): Promise<WorkspaceBranches> {
    const { core } = this;
    const { items } = await core.repos.environments.list({ workspaceId: workspace.id, limit: Number.MAX_SAFE_INTEGER });
    const own = items.filter((e) => core.isOwn(e));
    return {
      workspace,
      // Where landing merges (an environment's repository); the workspace's checkout when no run has one here.
      repository: own[0]?.repository ?? core.checkoutOf(workspace),
      branches: own.map((e) => ({ runId: e.run_id, branch: e.branch })),
      elsewhere: items.filter((e) => !core.isOwn(e)).map((e) => e.run_id),
      git: core.git,
    };
  }

  /** The run's environment when its branch is in a registered directory this server reaches, else as `#runEnvironment`. */
  async #sharedEnvironment(runId: string): Promise<Environment> {
    const { items } = await this.core.repos.environments.list({ runId });
    for (const environment of items) {
      const workspace = await this.core.repos.workspaces.get(environment.workspace_id);
      if (workspace?.source === 'path' && environment.repository === workspace.path && (await isDirectory(environment.repository))) return environment;
    }
    return this.#runEnvironment(runId);
  }

  /** The environment holding a run's branch in this server's home. */
  async #runEnvironment(runId: string): Promise<Environment> {
    const { items } = await this.core.repos.environments.list({ runId });
    const environment = items.find((e) => this.core.isOwn(e)) ?? items[0];
    if (!environment) {
      throw new DomainError('worktree_gone', `Run ${runId}'s worktree and its branch svc/${runId} were cleaned up; its changes are no longer kept.`);
    }
    if (!this.core.isOwn(environment)) {
      const message = `Run ${runId}'s branch is in the repository of another server's home (${environment.home_id}); ask a server of that home.`;
      throw new DomainError('worktree_elsewhere', message, { homeId: environment.home_id });
    }
    return environment;
  }
}
