/**
 * `svc workspace cleanup` (cleanup.ts decides): removing the worktrees and `svc/*` branches of
 * finished runs, in this server's home, and telling the other homes to clean up theirs.
 */

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isDirectory } from './local-repository.js';
import { assertCleanupRule, cleanEnvironments, cleanupRuleToChange, type CleanupResult, type CleanupRule } from './cleanup.js';
import type { WorkspaceCore } from './workspace-core.js';
import { tipOf, type WorktreePool } from './worktree-pool.js';

export class WorkspaceCleanup {
  constructor(
    private readonly core: WorkspaceCore,
    private readonly pool: WorktreePool,
  ) {}

  /**
   * Removes the worktrees and `svc/*` branches of finished runs by age, by outcome (`merged`) or
   * both, and says which it kept and why. A failed run resumed later gets a new worktree and runs
   * all its nodes again (their files are gone).
   */
  async cleanup(rule: CleanupRule, workspaceId?: string, { announce = true } = {}): Promise<CleanupResult> {
    const { core } = this;
    assertCleanupRule(rule);
    if (workspaceId) await core.record(workspaceId);
    const { items } = await core.repos.environments.list({ workspaceId, limit: Number.MAX_SAFE_INTEGER });
    const { result, elsewhere } = await cleanEnvironments(items, rule, {
      view: (environment) => core.environmentView(environment),
      isOwn: (environment) => core.isOwn(environment),
      locked: (environment, work) => core.exclusive(environment.workspace_id, work),
      defaultBranch: async (id) => (await core.repos.workspaces.get(id))?.default_branch ?? '',
      remove: (environment) => core.removeEnvironment(environment),
      git: core.git,
      announce,
    });
    if (elsewhere) core.announce({ kind: 'cleanup', ...cleanupRuleToChange(rule), ...(workspaceId ? { workspaceId } : {}) });
    result.pool = await this.#emptyPools(workspaceId);
    return result;
  }

  /**
   * The pools of prepared worktrees go too, whatever the rule (docs/decisions.md, "Setup cache and
   * pool"): a clean-up is asked to give the disk back, and a pool fills again once runs come.
   */
  async #emptyPools(workspaceId: string | undefined): Promise<CleanupResult['pool']> {
    const { core, pool } = this;
    const ids = workspaceId ? [workspaceId] : await readdir(join(core.deps.home, 'workspaces')).catch(() => [] as string[]);
    const removed: CleanupResult['pool'] = [];
    for (const id of ids) {
      const record = await core.repos.workspaces.get(id);
      if (!record || !(await isDirectory(pool.directory(id).dir))) continue;
      const repository = await pool.repositoryOf(record);
      const tip = repository && record.default_branch ? await tipOf(repository, record.default_branch, core).catch(() => null) : null;
      const emptied = await core.exclusive(id, () => pool.empty(id, repository));
      for (const { name, commit, preparedAt, preparedBy } of emptied) {
        const state = commit === tip ? 'ready' : 'stale';
        removed.push({ name, path: pool.directory(id).pathOf(name), commit, state, prepared_at: preparedAt, prepared_by: preparedBy });
      }
    }
    return removed;
  }
}
