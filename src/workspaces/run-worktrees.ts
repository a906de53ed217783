/**
 * Where a run on a workspace executes (docs/contract.md, "Workspaces"): a worktree of its own on
 * branch `svc/<runId>`, made when the run is placed, reused when it resumes, prepared from its
 * `.svc/worktree.yaml`, committed to per node, and removed with the run. This is the run engine's
 * `WorktreeProvider` port, passed to the engine as it is (the engine knows no more of workspaces).
 */

import { join } from 'node:path';
import { DomainError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { RunWorktree, WorktreeProvider } from '../runs/index.js';
import { headOf, worktreeCommits } from './commits.js';
import { isDirectory, localRepository } from './local-repository.js';
import type { Environment } from './records.js';
import { addWorktree, branchExists } from './worktrees.js';
import { cacheSetting, prepareWorktree, type WorktreePreparation } from './worktree-preparation.js';
import { readPoolNote, takeAtBranchTip, takeFromPool } from './pool-take.js';
import { runGit } from './git.js';
import type { WorktreePool } from './worktree-pool.js';
import type { WorkspaceCore } from './workspace-core.js';
import type { WorkspaceEnv } from './workspace-env.js';

/** How long after a run's setup its workspace's pool starts refilling (`setUpDone`). */
const REFILL_AFTER_SETUP_MS = 250;

/** How a run is placed: `existingOnly` for a resumed run; `here` when this server executes it (a shared database). */
export interface PlaceOptions {
  existingOnly?: boolean;
  /**
   * Placed by the server that executes the run (docs/contract.md, "Workspaces"): a clone is this
   * server's own (made now when it has none) and a directory registered by path must exist here
   * (local-repository.ts). A worktree the run already has is reused where it is present.
   */
  here?: boolean;
  /** A follow-on run (docs/decisions.md, "Follow-on runs"): the commit a new worktree's branch starts at, not the default branch. */
  from?: string | undefined;
}

/** A run placed on a workspace, as the workspaces record it. */
export interface PlacedRun {
  /** The run's working directory: its worktree, or the directory itself when it is no git repository. */
  cwd: string;
  environment: Environment | null;
  /** A worktree made now: the commit it starts from (a reused one's is on the run's record). */
  baseCommit?: string;
}

export class RunWorktrees implements WorktreeProvider {
  /** The git of a run's worktree: a commit per node. */
  readonly commits: WorktreeProvider['commits'];

  constructor(
    private readonly core: WorkspaceCore,
    private readonly envs: WorkspaceEnv,
    private readonly pool: WorktreePool,
  ) {
    this.commits = worktreeCommits(core.git);
  }

  async place(workspaceId: string, runId: string, options: { here?: boolean; from?: string } = {}): Promise<RunWorktree> {
    return toRunWorktree(await this.placeRun(workspaceId, runId, options));
  }

  async resume(workspaceId: string, runId: string, options: { here?: boolean } = {}): Promise<RunWorktree> {
    return toRunWorktree(await this.placeRun(workspaceId, runId, { ...options, existingOnly: true }));
  }

  /** Where a run on the workspace would be recorded before a server executes it: the workspace's own path (404 when it is gone). */
  async pathOf(workspaceId: string): Promise<string> {
    return (await this.core.record(workspaceId)).path;
  }

  env(workspaceId: string): Promise<Record<string, string>> {
    return this.envs.values(workspaceId);
  }

  assertAgentAllowed(workspaceId: string, cwd: string): Promise<void> {
    return this.envs.assertAgentAllowed(workspaceId, cwd);
  }

  /** A new worktree's `.svc/worktree.yaml`: copies made, the setup script to run (worktree-preparation.ts). */
  async prepare(workspaceId: string, cwd: string): Promise<WorktreePreparation | null> {
    const record = await this.core.record(workspaceId);
    const caching = cacheSetting(this.core.deps, workspaceId);
    // Taken from the pool: prepared ahead, so the step copies and commits, and neither restores nor runs the script.
    const pooled = await readPoolNote(cwd);
    const workspace = { id: workspaceId, checkout: this.core.checkoutOf(record), allowEnvKeys: record.allow_env_keys };
    const preparation = await prepareWorktree(workspace, cwd, pooled ? undefined : caching);
    return preparation && { ...preparation, pooled };
  }

  release(runId: string): Promise<void> {
    return this.removeRunEnvironment(runId);
  }

  /**
   * Where a run on a workspace executes: a fresh worktree on branch `svc/<runId>` from the default
   * branch (or `from`, a follow-on run's earlier head), reused when the run resumes. A directory that is no git repository
   * has no worktrees: the run executes in it (docs/contract.md, "Workspaces").
   */
  placeRun(id: string, runId: string, options: PlaceOptions = {}): Promise<PlacedRun> {
    return this.core.exclusive(id, () => this.#placeRun(id, runId, options));
  }

  async #placeRun(id: string, runId: string, { existingOnly = false, here = false, from }: PlaceOptions): Promise<PlacedRun> {
    const { core } = this;
    const record = await core.record(id);
    const repository = here ? await localRepository(record, core.deps) : record.path;
    if (!record.default_branch) return { cwd: repository, environment: null };
    const existing = (await core.repos.environments.list({ runId, workspaceId: id, limit: 1 })).items[0];
    if (existing && !core.isOwn(existing)) {
      // Another home's worktree (docs/scaling.md): only its servers look at it, and the run goes on there.
      if (!here) return { cwd: existing.path, environment: existing };
    } else if (existing) {
      const present = await isDirectory(existing.path);
      if (present) return { cwd: existing.path, environment: existing };
      await core.repos.environments.delete(existing.id);
    }
    if (existingOnly) {
      throw new DomainError(
        'worktree_gone',
        `Run ${runId}'s worktree in workspace ${id} was cleaned up, and with it what its completed nodes changed; start the workflow anew.`,
        { workspaceId: id, runId },
      );
    }
    const path = join(core.ownDir(id), 'worktrees', runId);
    const branch = `svc/${runId}`;
    const what = `run ${runId} in workspace ${id}`;
    const target = { repository, path, branch, from: from ?? record.default_branch, what, workspaceId: id };
    const taken = await this.#takeFromPool(target, from === undefined);
    if (!taken) await addWorktree(target, core.git);
    const baseCommit = taken ?? (await headOf(path, core.git));
    const environment: Environment = {
      id: newId('env'),
      workspace_id: id,
      repository,
      path,
      branch,
      run_id: runId,
      created_at: core.now(),
      ...(core.deps.homes.homeId !== undefined ? { home_id: core.deps.homes.homeId } : {}),
    };
    await core.repos.environments.insert(environment);
    return { cwd: path, environment, baseCommit };
  }

  /**
   * The run's worktree is set up: its workspace's pool is refilled in the background (a server's
   * pool only) once the run's first node has had time to start. The refill's first git process
   * would otherwise be spawned between the setup and that node, and a spawn holds the event loop
   * for a few milliseconds (a fork of the server), which the first node would wait for.
   */
  setUpDone(workspaceId: string): void {
    setTimeout(() => this.pool.check(workspaceId, { demand: true }), REFILL_AFTER_SETUP_MS).unref();
  }

  /**
   * A worktree prepared ahead becomes the run's when one fits its base (pool-take.ts): its base
   * commit, or null when none was taken. Never for a branch that exists already (a run placed again
   * after its folder was removed by hand keeps its branch's commits: worktrees.ts makes the
   * worktree on it).
   */
  async #takeFromPool(
    target: { repository: string; path: string; branch: string; from: string; workspaceId: string },
    fromDefaultBranch: boolean,
  ): Promise<string | null> {
    const { core } = this;
    const pool = this.pool.directory(target.workspaceId);
    const ready = await pool.ready();
    if (ready.length === 0) return null;
    const onError = (error: Error) =>
      core.deps.logger.warn('workspace.pool_take_failed', { workspaceId: target.workspaceId, path: target.path, error: error.message });
    const atTip = fromDefaultBranch ? await takeAtBranchTip(pool, ready, target, core.git, onError) : null;
    if (atTip) return atTip;
    if (await branchExists(target.repository, target.branch, core.git)) return null;
    const base = (
      await runGit(['rev-parse', '--verify', '--quiet', `${target.from}^{commit}`], { cwd: target.repository, ...core.git }).catch(() => '')
    ).trim();
    if (!base) return null;
    const taken = await takeFromPool(pool, ready, { ...target, base }, core.git, onError);
    return taken ? base : null;
  }

  /** Removes a run's worktree and branch (the run was deleted); another home's are removed by its servers, when told. */
  async removeRunEnvironment(runId: string, { announce = true } = {}): Promise<void> {
    const { core } = this;
    const { items } = await core.repos.environments.list({ runId });
    for (const environment of items.filter((e) => core.isOwn(e))) {
      await core.exclusive(environment.workspace_id, () => core.removeEnvironment(environment));
    }
    if (announce && items.some((e) => !core.isOwn(e))) core.announce({ kind: 'run_deleted', runId });
  }
}

/** A run's place as the engine sees it: its cwd, and whether that is a worktree this server made in its own home. */
function toRunWorktree(placed: PlacedRun): RunWorktree {
  return { cwd: placed.cwd, worktree: placed.environment !== null, branch: placed.environment?.branch, baseCommit: placed.baseCommit };
}
