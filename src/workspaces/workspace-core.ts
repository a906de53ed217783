/**
 * What every part of the workspaces service shares (service.ts): the dependencies, the one lock per
 * workspace, the record lookups, which home an environment is in, and removing a run's worktree.
 * Internal to workspaces/: each part (env values and consent, run worktrees, run branches, clean-up,
 * removal) is given the same core, so they all hold the same lock.
 */

import { join } from 'node:path';
import { DomainError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { removeWorktree, type WorktreeGit } from './worktrees.js';
import type { Environment, EnvironmentView, Workspace, WorkspaceRecord } from './records.js';
import type { WorkspaceRepositories } from './repository.js';
import type { HomeCoordination, WorkspaceChange } from '../coordination/index.js';
import type { MemoryAdmission } from '../processes/index.js';

/** What the workspaces need to know about runs, without depending on the engine. */
export interface RunLookup {
  /** `undefined` when no such run exists; `finishedAt` null while it can still change. */
  finishedAt(runId: string): Promise<string | null | undefined>;
}

export interface WorkspaceServiceDeps {
  repositories: WorkspaceRepositories;
  logger: Logger;
  /** `$SVC_HOME`: clones and worktrees live under `<home>/workspaces/<id>/`. */
  home: string;
  /** The environment git runs with. */
  env: NodeJS.ProcessEnv;
  gitTimeoutMs?: number;
  runs: RunLookup;
  now?: () => Date;
  /**
   * Which home a worktree or clone is in (coordination/types.ts): this process's alone, or, with
   * several servers on one database (docs/scaling.md), each removes only the worktrees and clones
   * of its own home, and tells the others to remove theirs.
   */
  homes: HomeCoordination;
  /**
   * Told of each workspace once it is registered: the catalog registers the webhook triggers of
   * its workflows then, not at the next periodic pass. A failure there is logged, not the caller's.
   */
  registered?(workspace: Workspace): Promise<unknown>;
  /** `SVC_GH_BIN`: the GitHub CLI that opens pull requests (default `gh`). */
  ghBin?: string;
  /** `SVC_CACHE_MAX_BYTES`: the setup caches of all workspaces of the home (setup-cache.ts); default `DEFAULT_CACHE_MAX_BYTES`. */
  cacheMaxBytes?: number;
  /** The server's memory budget (processes/memory-admission.ts): a pool's refill runs only where it leaves room, and gives its place to a waiting node. */
  memory?: MemoryAdmission;
}

export class WorkspaceCore {
  /**
   * One operation at a time per workspace: placing a run, changing env values or consent,
   * cleaning up and deleting all read the record, touch git or the store, and write — run side by
   * side, a delete could miss a worktree a run was just given (left behind in the user's
   * repository) or a write could bring back what a delete removed. In one process; a shared
   * database will need its own row lock.
   */
  readonly #locks = new Map<string, Promise<unknown>>();

  constructor(readonly deps: WorkspaceServiceDeps) {}

  exclusive<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(id) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.catch(() => undefined);
    this.#locks.set(id, tail);
    void tail.then(() => {
      if (this.#locks.get(id) === tail) this.#locks.delete(id);
    });
    return result;
  }

  get repos(): WorkspaceRepositories {
    return this.deps.repositories;
  }

  get git(): WorktreeGit {
    return { env: this.deps.env, timeoutMs: this.deps.gitTimeoutMs };
  }

  now(): string {
    return (this.deps.now?.() ?? new Date()).toISOString();
  }

  async record(id: string): Promise<WorkspaceRecord> {
    const record = await this.repos.workspaces.get(id);
    if (!record) throw new DomainError('workspace_not_found', `No workspace '${id}'.`);
    return record;
  }

  /** The workspace `ref` names: an id, a name or a unique id prefix (repository.ts `resolve`). */
  resolve(ref: string): Promise<WorkspaceRecord> {
    return this.repos.workspaces.resolve(ref);
  }

  /** `update` that answers 404 when the workspace is gone meanwhile. */
  async update(id: string, patch: Partial<Omit<WorkspaceRecord, 'id'>>): Promise<WorkspaceRecord> {
    const updated = await this.repos.workspaces.update(id, patch);
    if (!updated) throw new DomainError('workspace_not_found', `No workspace '${id}'.`);
    return updated;
  }

  /** `<home>/workspaces/<id>`: everything svc made for a workspace, and nothing else, lives here. */
  ownDir(id: string): string {
    return join(this.deps.home, 'workspaces', id);
  }

  /** The workspace's checkout in this server's home: a clone where this server keeps it, else the registered directory. */
  checkoutOf(record: Pick<WorkspaceRecord, 'id' | 'source' | 'path'>): string {
    return record.source === 'clone' ? join(this.ownDir(record.id), 'source') : record.path;
  }

  /** An environment this server's home holds. */
  isOwn(environment: Environment): boolean {
    return this.deps.homes.isHere(environment.home_id);
  }

  announce(change: WorkspaceChange): void {
    this.deps.homes.announce(change).catch((error: unknown) => this.deps.logger.warn('workspace.announce_failed', { error: (error as Error).message }));
  }

  async environmentView(environment: Environment): Promise<EnvironmentView> {
    const finishedAt = await this.deps.runs.finishedAt(environment.run_id);
    // A run that is gone has ended too; its worktree is only waiting for clean-up.
    const ended = finishedAt !== null;
    return { ...environment, status: ended ? 'ended' : 'active', ended_at: finishedAt ?? null };
  }

  /** Removes a run's worktree, its branch and its record. Call with the workspace's lock held. */
  async removeEnvironment(environment: Environment): Promise<void> {
    await removeWorktree(environment, join(this.ownDir(environment.workspace_id), 'worktrees'), this.git);
    await this.repos.environments.delete(environment.id);
  }
}
