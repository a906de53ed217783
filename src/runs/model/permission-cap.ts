import { PERMISSIONS, DEFAULT_NODE_PERMISSIONS, type Permissions } from '../../shared/permissions.js';
import { DomainError } from '../../shared/errors.js';
import type { WorkflowDefinition } from '../../workflows/index.js';

/**
 * A run's own permissions (docs/contract.md, "A run's permissions"): a start may lower
 * what the workflow's agents may do, never raise it. The cap goes on the run record and is applied
 * to each agent node when the run executes, so the definition snapshot stays as written.
 */

const rank = (permissions: Permissions): number => PERMISSIONS.indexOf(permissions);

/** The most any agent of the workflow may do: its highest node's, or the workflow's default when it runs no agent. */
export function workflowPermissions(workflow: Pick<WorkflowDefinition, 'nodes' | 'permissions'>): Permissions {
  const agents = workflow.nodes.flatMap((node) => (node.permissions ? [node.permissions] : []));
  if (agents.length === 0) return workflow.permissions ?? DEFAULT_NODE_PERMISSIONS;
  return agents.reduce((top, permissions) => (rank(permissions) > rank(top) ? permissions : top));
}

/** Refuses a start's cap above what the workflow allows (422 `permissions_above_workflow`), before anything is made. */
export function checkRunPermissions(workflow: Pick<WorkflowDefinition, 'name' | 'nodes' | 'permissions'>, asked: Permissions | undefined): void {
  if (asked === undefined) return;
  const allowed = workflowPermissions(workflow);
  if (rank(asked) > rank(allowed)) {
    throw new DomainError(
      'permissions_above_workflow',
      `permissions '${asked}' is above what workflow '${workflow.name}' allows its agents ('${allowed}'); a run may only lower them.`,
      { asked, allowed },
    );
  }
}

/** A node as a run with permissions `cap` has it: an agent node at most `cap`. */
export function capNode<N extends { readonly permissions?: Permissions | undefined }>(node: N, cap: Permissions | null | undefined): N {
  return cap && node.permissions && rank(node.permissions) > rank(cap) ? { ...node, permissions: cap } : node;
}

/** The workflow as this run executes it: each agent node at most `cap`. */
export function capPermissions<W extends Pick<WorkflowDefinition, 'nodes'>>(workflow: W, cap: Permissions | null | undefined): W {
  return cap ? { ...workflow, nodes: workflow.nodes.map((node) => capNode(node, cap)) } : workflow;
}

/** The lower of an inherited cap and what the workflow allows: a start's `permissionsAtMost` (never above the workflow's, so never refused). */
export function inheritedCap(workflow: Pick<WorkflowDefinition, 'nodes' | 'permissions'>, atMost: Permissions): Permissions {
  const allowed = workflowPermissions(workflow);
  return rank(atMost) < rank(allowed) ? atMost : allowed;
}
