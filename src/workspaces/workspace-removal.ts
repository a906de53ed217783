/**
 * Deleting a workspace, and removing what this server's home holds of what another server
 * deleted or cleaned up (docs/scaling.md): a directory the user registered by path is never
 * deleted, nor anything outside `<home>/workspaces/<id>`.
 */

import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { WorkspaceChange } from '../coordination/index.js';
import { DomainError } from '../shared/errors.js';
import { cleanupRuleOf } from './cleanup.js';
import { toWorkspaceView, type Environment, type Workspace, type WorkspaceRecord } from './records.js';
import type { RunWorktrees } from './run-worktrees.js';
import type { WorkspaceCleanup } from './workspace-cleanup.js';
import type { WorktreePool } from './worktree-pool.js';
import type { WorkspaceCore } from './workspace-core.js';
import { isInside } from './worktrees.js';
import { isDirectory } from './local-repository.js';

export class WorkspaceRemoval {
  constructor(
    private readonly core: WorkspaceCore,
    private readonly parts: {
      runWorktrees: Pick<RunWorktrees, 'removeRunEnvironment'>;
      cleanup: Pick<WorkspaceCleanup, 'cleanup'>;
      pool: Pick<WorktreePool, 'halt' | 'empty'>;
    },
  ) {}

  /**
   * Removes the registration, every worktree and `svc/*` branch of its runs, and our clone.
   * Refused (409 `workspace_in_use`) while a run on it can still change: its worktree would vanish under it.
   */
  delete(id: string): Promise<Workspace> {
    return this.core.exclusive(id, () => this.#delete(id));
  }

  async #delete(id: string): Promise<Workspace> {
    const { core } = this;
    const record = await core.record(id);
    const { items } = await core.repos.environments.list({ workspaceId: id, limit: Number.MAX_SAFE_INTEGER });
    const views = await Promise.all(items.map((environment) => core.environmentView(environment)));
    const busy = views.filter((view) => view.status === 'active').map((view) => view.run_id);
    if (busy.length) {
      throw new DomainError('workspace_in_use', `Workspace ${id} has runs that are not finished (${busy.join(', ')}); cancel or abandon them first.`, {
        runs: busy,
      });
    }
    await this.#removeOwnFiles(id, record, items);
    await core.repos.secrets.clear(id);
    await core.repos.workspaces.delete(id);
    // Other homes' worktrees and clones of it go when their servers are told; their environments' records stay until then.
    core.announce({ kind: 'workspace_deleted', workspaceId: id, source: record.source, path: record.path });
    return toWorkspaceView(record);
  }

  /**
   * This home's worktrees of the workspace — its runs' and its pool's, the refill stopped for good
   * first — and its folder (clone, worktrees, pool, cache) unless a path the user registered lies in it.
   */
  async #removeOwnFiles(id: string, record: Pick<WorkspaceRecord, 'source' | 'path'>, environments: Environment[]): Promise<void> {
    for (const environment of environments.filter((e) => this.core.isOwn(e))) await this.core.removeEnvironment(environment);
    const { pool } = this.parts;
    await pool.halt(id);
    // Unregistered from a directory the user registered: its .git keeps no notes of them (svc's clone goes whole).
    await pool.empty(id, record.source === 'path' && (await isDirectory(record.path)) ? record.path : null);
    const own = this.core.ownDir(id);
    const usersDirInside = record.source === 'path' && (resolve(record.path) === resolve(own) || isInside(record.path, own));
    await rm(usersDirInside ? join(own, 'worktrees') : own, { recursive: true, force: true });
  }

  /** What another server announced (coordination/postgres-homes.ts): this server removes what its own home holds of it. */
  async applyChange(change: WorkspaceChange): Promise<void> {
    if (change.kind === 'run_deleted') return this.parts.runWorktrees.removeRunEnvironment(change.runId, { announce: false });
    if (change.kind === 'cleanup') return void (await this.parts.cleanup.cleanup(cleanupRuleOf(change), change.workspaceId, { announce: false }));
    // The id names a folder this server removes: only ever one of `<home>/workspaces`.
    if (!/^[A-Za-z0-9_-]+$/.test(change.workspaceId)) throw new Error(`not a workspace id: '${change.workspaceId}'`);
    await this.core.exclusive(change.workspaceId, async () => {
      const { items } = await this.core.repos.environments.list({ workspaceId: change.workspaceId, limit: Number.MAX_SAFE_INTEGER });
      await this.#removeOwnFiles(change.workspaceId, change, items);
    });
  }
}
