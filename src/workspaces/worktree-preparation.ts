/**
 * A new worktree's preparation (docs/decisions.md, "Worktree setup and $SVC_PORT"): its
 * `.svc/worktree.yaml` read and checked, the `copy:` files copied from the workspace's checkout —
 * under the env-leak gate: files holding agent keys are copied only with the workspace's consent,
 * as agents would otherwise find them where they work — and the `setup:` script handed back for the
 * engine to run. Null when the worktree has no such file.
 */

import { DomainError } from '../shared/errors.js';
import { mergeSandbox, type SandboxWidening } from '../workflows/index.js';
import { scanListedFiles } from './env-scan.js';
import { readWorktreeConfig } from './worktree-config.js';
import { copyIntoWorktree } from './worktree-copy.js';

export interface WorktreePreparation {
  script: string | null;
  copied: string[];
  missing: string[];
  /** `sandbox:`: what widens the sandbox of the run's sandboxed nodes; null when it says nothing. */
  sandbox: SandboxWidening | null;
}

export async function prepareWorktree(
  workspace: { id: string; checkout: string; allowEnvKeys: boolean },
  worktree: string,
): Promise<WorktreePreparation | null> {
  const config = await readWorktreeConfig(worktree);
  if (!config) return null;
  const paths = config.copy ?? [];
  if (paths.length && !workspace.allowEnvKeys) {
    const { files, keys } = await scanListedFiles(workspace.checkout, paths);
    if (keys.length) {
      throw new DomainError(
        'env_leak_blocked',
        `copying ${files.join(', ')} would put agent keys (${keys.join(', ')}) into the worktree, where agents work; ` +
          `remove them, or consent with \`svc workspace consent ${workspace.id} --allow\`.`,
        { workspaceId: workspace.id, files, keys },
      );
    }
  }
  const { copied, missing } = paths.length ? await copyIntoWorktree(workspace.checkout, worktree, paths) : { copied: [], missing: [] };
  return { script: config.setup ?? null, copied, missing, sandbox: config.sandbox ? mergeSandbox(config.sandbox, undefined)! : null };
}
