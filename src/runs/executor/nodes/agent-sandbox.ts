import { setUpSandbox, type PreparedSandbox } from '../../../sandbox/index.js';
import { DEFAULT_NODE_PERMISSIONS } from '../../../shared/permissions.js';
import { mergeSandbox } from '../../../workflows/index.js';
import type { NodeRunContext, PromptDeps } from './types.js';

/**
 * A prompt node's sandbox (sandbox/setup.ts): the decision its record states (executor.ts)
 * made again here, and for a sandboxed agent its worktree, the run's artifacts, a temporary
 * directory of its own, and the workflow's and node's `sandbox:` widening.
 */
export function prepareAgentSandbox(
  { run, node, artifactsDir }: Pick<NodeRunContext, 'run' | 'node' | 'artifactsDir'>,
  { mode, svcHome }: PromptDeps['sandbox'],
  env: NodeJS.ProcessEnv,
): Promise<PreparedSandbox> {
  return setUpSandbox({
    permissions: node.permissions ?? DEFAULT_NODE_PERMISSIONS,
    mode,
    cwd: run.cwd,
    env,
    svcHome,
    artifactsDir,
    widening: mergeSandbox(run.setup?.sandbox, node.sandbox),
    label: `${run.id}-${node.id}`,
  });
}
