import { hashDefinition } from '../model/definition-hash.js';
import type { EngineDeps } from './engine-deps.js';
import type { RunRecord } from '../model/types.js';

/**
 * Whether the workflow's definition is another now than the one the run executes (the run
 * detail's `definitionChanged`): looked up where the run found it — its workspace's directory,
 * else the directory it started in. Undefined when that cannot be told: a run recorded before
 * versions, or a workflow that is gone or no longer parses.
 */
export async function definitionChanged(deps: Pick<EngineDeps, 'resolver' | 'worktrees'>, run: RunRecord): Promise<boolean | undefined> {
  if (!run.definitionHash) return undefined;
  try {
    const cwd = run.workspaceId ? await deps.worktrees.pathOf(run.workspaceId) : run.cwd;
    const resolved = await deps.resolver.resolve(run.workflow, cwd);
    return resolved === undefined ? undefined : hashDefinition(resolved.definition) !== run.definitionHash;
  } catch {
    // A workspace deleted since, a workflow removed or broken: nothing to compare with.
    return undefined;
  }
}
