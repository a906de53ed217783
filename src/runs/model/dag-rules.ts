import { evaluateWhen, type WorkflowNode } from '../../workflows/index.js';
import { isNodeDone, type NodeState, type RunStatus } from './types.js';

export type NodeDecision = { kind: 'wait' } | { kind: 'run' } | { kind: 'skip'; reason: string };

/**
 * Whether a pending node can start now. It waits until every dependency is done; then its
 * `trigger_rule` decides whether the dependencies' outcomes allow it, and its `when` whether
 * the outputs do. A failed dependency only affects its own descendants, never siblings.
 */
export function decideNode(node: WorkflowNode, states: Readonly<Record<string, NodeState>>, outputs: Readonly<Record<string, string>>): NodeDecision {
  // A tolerated failure (`continue_on_error`) counts as a success for its dependents, as GitHub
  // Actions' does (docs/decisions.md, "Tolerated failures").
  const deps = node.dependsOn.map((id) => ({ id, status: isTolerated(states[id]) ? 'completed' : (states[id]?.status ?? 'pending') }));
  if (deps.some((dep) => !isNodeDone(dep.status))) return { kind: 'wait' };
  const succeeded = deps.filter((d) => d.status === 'completed').length;
  const failed = deps.filter((d) => d.status === 'failed' || d.status === 'cancelled');
  const notSucceeded = deps.filter((d) => d.status !== 'completed');
  if (deps.length > 0) {
    switch (node.triggerRule) {
      case 'all_success':
        if (notSucceeded.length > 0) return { kind: 'skip', reason: `trigger_rule all_success: ${describe(notSucceeded)}` };
        break;
      case 'one_success':
        if (succeeded === 0) return { kind: 'skip', reason: 'trigger_rule one_success: no dependency completed' };
        break;
      case 'none_failed_min_one_success':
        if (failed.length > 0) return { kind: 'skip', reason: `trigger_rule none_failed_min_one_success: ${describe(failed)}` };
        if (succeeded === 0) return { kind: 'skip', reason: 'trigger_rule none_failed_min_one_success: no dependency completed' };
        break;
      case 'all_done':
        break;
    }
  }
  if (node.when && !evaluateWhen(node.when, outputs)) return { kind: 'skip', reason: `when: ${node.whenSource ?? 'condition'} is false` };
  return { kind: 'run' };
}

/** A failed node whose `continue_on_error` tolerates its failure: the run can still complete. */
export const isTolerated = (state: NodeState | undefined): boolean => state?.status === 'failed' && state.tolerated === true;

function describe(deps: Array<{ id: string; status: string }>): string {
  return deps.map((d) => `'${d.id}' ${d.status}`).join(', ');
}

/**
 * The run's state once nothing is running and nothing more can start. A gate pauses it (its waits
 * keep their place until it goes on); else an open wait keeps it `waiting`, whatever else failed:
 * the branch after the wait may still run.
 */
export function settledStatus(states: Readonly<Record<string, NodeState>>): Extract<RunStatus, 'paused' | 'waiting' | 'failed' | 'completed'> {
  const all = Object.values(states);
  if (all.some((s) => s.status === 'waiting_approval')) return 'paused';
  if (all.some((s) => s.status === 'waiting')) return 'waiting';
  if (all.some((s) => (s.status === 'failed' && !isTolerated(s)) || s.status === 'cancelled' || s.status === 'pending' || s.status === 'running'))
    return 'failed';
  return 'completed';
}
