/**
 * `svc workspace cleanup` (cleanup.ts decides): removing the worktrees and `svc/*` branches of
 * finished runs, in this server's home, and telling the other homes to clean up theirs.
 */

import { assertCleanupRule, cleanEnvironments, cleanupRuleToChange, type CleanupResult, type CleanupRule } from './cleanup.js';
import type { WorkspaceCore } from './workspace-core.js';

export class WorkspaceCleanup {
  constructor(private readonly core: WorkspaceCore) {}

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
    return result;
  }
}
