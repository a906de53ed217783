/**
 * Workspaces (docs/contract.md, "Workspaces"): a repository svc cloned, or a directory the user
 * registered, in which runs execute in git worktrees of their own; the workspace's env values; and
 * the env-leak gate with its audit entries. The server and the CLI reach this through the API.
 *
 * `WorkspaceService` keeps the registrations and their views, and is the one door to its parts,
 * each with one job and all on one core (workspace-core.ts: the lock per workspace, the records):
 * env values and consent (workspace-env.ts), run worktrees — the engine's port (run-worktrees.ts),
 * a run's branch: its diff and landing site (run-branches.ts), clean-up (workspace-cleanup.ts),
 * and deleting (workspace-removal.ts).
 */

import { DEFAULT_CACHE_MAX_BYTES, SetupCache, workspaceCacheDir, type CacheEntry } from './setup-cache.js';
import type { WorkspaceChange } from '../coordination/index.js';
import { registerWorkspace } from './registration.js';
import type { CleanupResult, CleanupRule } from './cleanup.js';
import type { DiffRange, RunDiff } from './diff.js';
import { worktreesOnDisk } from './disk-usage.js';
import { toWorkspaceView, type EnvironmentView, type Workspace, type WorkspaceDetail } from './records.js';
import type { Paging } from './repository.js';
import { RunBranches, type LandingSite, type WorkspaceBranches } from './run-branches.js';
import { RunWorktrees, type PlacedRun, type PlaceOptions } from './run-worktrees.js';
import { WorkspaceCleanup } from './workspace-cleanup.js';
import { WorkspaceCore, type WorkspaceServiceDeps } from './workspace-core.js';
import { WorkspaceEnv, type ConsentActor } from './workspace-env.js';
import { WorkspaceRemoval } from './workspace-removal.js';
import { cleanupPushedRun, type PushedCleanup } from './pushed-cleanup.js';
import { WorktreePool } from './worktree-pool.js';

export type { LandingSite, WorkspaceBranches } from './run-branches.js';
export type { PlacedRun, PlaceOptions } from './run-worktrees.js';
export type { PushedCleanup } from './pushed-cleanup.js';
export type { RunLookup, WorkspaceServiceDeps } from './workspace-core.js';
export { ENV_KEY_PATTERN, type ConsentActor } from './workspace-env.js';

export class WorkspaceService {
  readonly #core: WorkspaceCore;
  readonly #env: WorkspaceEnv;
  readonly #branches: RunBranches;
  readonly #cleanup: WorkspaceCleanup;
  readonly #removal: WorkspaceRemoval;
  /** Where runs on a workspace execute: the run engine's `WorktreeProvider` port, given to it as it is. */
  readonly runWorktrees: RunWorktrees;
  /**
   * The pools of prepared worktrees in this home (worktree-pool.ts): any process placing runs
   * takes from them; a server refills them (`pool.start()`, and `pool.close()` as it stops).
   */
  readonly pool: WorktreePool;

  constructor(deps: WorkspaceServiceDeps) {
    this.#core = new WorkspaceCore(deps);
    this.#env = new WorkspaceEnv(this.#core);
    this.pool = new WorktreePool(this.#core, { envValues: (id) => this.#env.values(id), memory: deps.memory });
    this.runWorktrees = new RunWorktrees(this.#core, this.#env, this.pool);
    this.#branches = new RunBranches(this.#core);
    this.#cleanup = new WorkspaceCleanup(this.#core, this.pool);
    this.#removal = new WorkspaceRemoval(this.#core, { runWorktrees: this.runWorktrees, cleanup: this.#cleanup, pool: this.pool });
  }

  async register(input: { url?: string | undefined; path?: string | undefined }): Promise<Workspace> {
    const { deps } = this.#core;
    const workspace = await registerWorkspace(input, { ...deps, now: () => this.#core.now() });
    await deps
      .registered?.(workspace)
      .catch((error: unknown) => deps.logger.warn('workspace.registered_hook_failed', { workspaceId: workspace.id, error: (error as Error).message }));
    // Its pool (when its .svc/worktree.yaml says `pool:`) fills before its first run asks.
    this.pool.check(workspace.id);
    return workspace;
  }

  /**
   * Every method here that takes a workspace takes it as the user names it — an id, a name or a
   * unique id prefix (docs/contract.md, "HTTP") — and works on the id it resolves to.
   */
  async get(ref: string): Promise<Workspace> {
    return toWorkspaceView(await this.#core.resolve(ref));
  }

  /** The full id `ref` names; 404 `workspace_not_found` or 400 `ambiguous_workspace` else. */
  async idOf(ref: string): Promise<string> {
    return (await this.#core.resolve(ref)).id;
  }

  /** The workspace, what its run worktrees take in this server's home (walked now: disk-usage.ts), and its pool of prepared worktrees here. */
  async detail(ref: string): Promise<WorkspaceDetail> {
    const record = await this.#core.resolve(ref);
    const { items } = await this.#core.repos.environments.list({ workspaceId: record.id, limit: Number.MAX_SAFE_INTEGER });
    const disk = await worktreesOnDisk(items.filter((e) => this.#core.isOwn(e)).map((e) => e.path));
    return { ...toWorkspaceView(record), disk, pool: await this.pool.view(record) };
  }

  async list(paging?: Paging): Promise<{ workspaces: Workspace[]; total: number }> {
    const { items, total } = await this.#core.repos.workspaces.list(paging);
    return { workspaces: items.map(toWorkspaceView), total };
  }

  async environments(ref: string): Promise<EnvironmentView[]> {
    const { id } = await this.#core.resolve(ref);
    const { items } = await this.#core.repos.environments.list({ workspaceId: id });
    return Promise.all(items.map((environment) => this.#core.environmentView(environment)));
  }

  // Env values and consent (workspace-env.ts).

  /** The consent bit, with its warn-level audit entry (docs/contract.md, "Log entries"). */
  async setConsent(ref: string, allow: boolean, actor: ConsentActor): Promise<Workspace> {
    return this.#env.setConsent(await this.idOf(ref), allow, actor);
  }

  async setEnv(ref: string, values: Record<string, string>): Promise<Workspace> {
    return this.#env.setEnv(await this.idOf(ref), values);
  }

  async unsetEnv(ref: string, key: string): Promise<Workspace> {
    return this.#env.unsetEnv(await this.idOf(ref), key);
  }

  /** The workspace's env values, for a process's environment only. */
  envValues(id: string): Promise<Record<string, string>> {
    return this.#env.values(id);
  }

  /** The env-leak gate, before every agent invocation in a workspace (at `cwd`, a worktree of it). */
  assertAgentAllowed(id: string, cwd?: string): Promise<void> {
    return this.#env.assertAgentAllowed(id, cwd);
  }

  // Run worktrees (run-worktrees.ts) and a run's branch (run-branches.ts).

  /** Where a run on a workspace executes: its worktree, made now or reused (run-worktrees.ts). */
  placeRun(id: string, runId: string, options?: PlaceOptions): Promise<PlacedRun> {
    return this.runWorktrees.placeRun(id, runId, options);
  }

  /** Removes a run's worktree and branch (the run was deleted); another home's are removed by its servers, when told. */
  removeRunEnvironment(runId: string, options?: { announce?: boolean }): Promise<void> {
    return this.runWorktrees.removeRunEnvironment(runId, options);
  }

  /** The diff of a run's commits (run-branches.ts); 409 `worktree_gone` or `worktree_elsewhere` when its branch is not here. */
  runDiff(runId: string, range: DiffRange): Promise<RunDiff> {
    return this.#branches.runDiff(runId, range);
  }

  /** Where a run's branch is landed from (landing/run-landing.ts); 409 as `runDiff` when the branch is not here. */
  landingSite(runId: string, options?: { sharedCheckout?: boolean }): Promise<LandingSite> {
    return this.#branches.landingSite(runId, options);
  }

  /** The run branches of a workspace this server's home holds, and their repository (the conflict forecast reads them: landing/forecast.ts). */
  async branches(ref: string): Promise<WorkspaceBranches> {
    return this.#branches.workspaceBranches(await this.#core.resolve(ref));
  }

  /** The workspace's setup cache in this server's home (setup-cache.ts): entries most recently used first, and the home's limit. */
  async cache(ref: string): Promise<SetupCacheView> {
    const id = await this.idOf(ref);
    const entries = await new SetupCache(workspaceCacheDir(this.#core.deps.home, id)).entries();
    const maxBytes = this.#core.deps.cacheMaxBytes ?? DEFAULT_CACHE_MAX_BYTES;
    return { workspaceId: id, entries, totalBytes: entries.reduce((sum, entry) => sum + entry.sizeBytes, 0), maxBytes };
  }

  /** Empties the workspace's setup cache in this server's home: the next worktree of each key runs its setup again. */
  async clearCache(ref: string): Promise<{ workspaceId: string; removed: number; freedBytes: number }> {
    const id = await this.idOf(ref);
    return { workspaceId: id, ...(await new SetupCache(workspaceCacheDir(this.#core.deps.home, id)).clear()) };
  }

  // Clean-up (workspace-cleanup.ts) and deleting (workspace-removal.ts).

  /** `svc workspace cleanup`: the worktrees and `svc/*` branches of finished runs, by age, by outcome or both. */
  async cleanup(rule: CleanupRule, workspace?: string, options?: { announce?: boolean }): Promise<CleanupResult> {
    return this.#cleanup.cleanup(rule, workspace === undefined ? undefined : await this.idOf(workspace), options);
  }

  /**
   * Removes a run's worktree and branch once its pull request is merged or closed (pushed-cleanup.ts):
   * kept, with the reason, while it has changes not committed or commits `pushed` lacks.
   */
  cleanupPushed(runId: string, pushed: string): Promise<PushedCleanup> {
    return cleanupPushedRun(this.#core, runId, pushed);
  }

  /**
   * Removes the registration, every worktree and `svc/*` branch of its runs, and our clone. A
   * directory the user registered by path is never deleted, nor anything outside
   * `<home>/workspaces/<id>`. Refused (409 `workspace_in_use`) while a run on it can still change.
   */
  async delete(ref: string): Promise<Workspace> {
    return this.#removal.delete(await this.idOf(ref));
  }

  /** What another server announced (coordination/postgres-homes.ts): this server removes what its own home holds of it. */
  applyChange(change: WorkspaceChange): Promise<void> {
    return this.#removal.applyChange(change);
  }
}

/** `GET /api/workspaces/{id}/cache`: the workspace's setup cache entries in this server's home. */
export interface SetupCacheView {
  workspaceId: string;
  entries: CacheEntry[];
  totalBytes: number;
  /** `SVC_CACHE_MAX_BYTES`: the limit of the caches of every workspace of the home together. */
  maxBytes: number;
}
