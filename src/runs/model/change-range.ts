import { DomainError } from '../../shared/errors.js';
import type { RunRecord } from './types.js';

/**
 * The commits a run's diff spans (docs/decisions.md, "A commit per node, and the diff"): the whole run, from the
 * commit its worktree started from to its branch after the latest node; or one node's range. 409
 * `no_worktree` for a run that had no worktree of its own (no workspace, or one that is no git
 * repository); 404 `node_not_found` for a node the run does not have.
 */
export function changeRange(run: RunRecord, nodeId?: string): { base: string | null; head: string | null } {
  if (!run.branch || !run.baseCommit) {
    throw new DomainError('no_worktree', `Run ${run.id} has no worktree of its own (it ran outside a git workspace), so it has no branch to diff.`, {
      runId: run.id,
    });
  }
  if (nodeId === undefined) return { base: run.baseCommit, head: run.headCommit ?? run.baseCommit };
  const node = run.nodes[nodeId];
  if (!node) throw new DomainError('node_not_found', `Run ${run.id} has no node '${nodeId}' (it has ${Object.keys(run.nodes).join(', ')}).`);
  const base = node.baseCommit ?? null;
  return { base, head: node.commit ?? base };
}
