/**
 * A workflow's execution plan (`svc run --dry-run`): the steps it runs in, each step the nodes
 * that may run at once (every dependency in an earlier step), and for each node what it does,
 * its condition and, for agent nodes, the agent, model and permissions it would get. Pure, and
 * free of zod: the CLI draws it from the definition as written.
 */

import { DEFAULT_NODE_PERMISSIONS, type Permissions } from '../shared/permissions.js';
import { layersOf, toDrawNodes } from './draw.js';
import type { RawNode, RawWorkflow } from './schema.js';

export interface PlannedNode {
  id: string;
  /** `prompt`, `bash`, `approval`, `command: <name>`. */
  kind: string;
  dependsOn: string[];
  /** The `when` condition as written. */
  when?: string;
  /** Written only when not the default (`all_success`). */
  triggerRule?: string;
  /** Agent nodes: the assistant, its model (null: the agent's own default) and the permissions. */
  agent?: { assistant: string; model: string | null; permissions: Permissions };
  /** Approval nodes: the gate's message. */
  approval?: string;
}

export interface ExecutionPlan {
  workflow: string;
  /** In order; the nodes of one step may run at once. */
  steps: PlannedNode[][];
}

/** What a node inherits when neither it nor the workflow names it: the configuration's assistant and models. */
export interface PlanDefaults {
  assistant: string;
  modelOf(assistant: string): string | null;
}

type PlannedWorkflow = Pick<RawWorkflow, 'name' | 'nodes' | 'assistant' | 'model' | 'permissions'>;

export function executionPlan(workflow: PlannedWorkflow, defaults: PlanDefaults): ExecutionPlan {
  const raw = new Map<string, RawNode>(workflow.nodes.map((node) => [node.id, node]));
  const planned = (id: string, kind: string, dependsOn: readonly string[]): PlannedNode => {
    const node = raw.get(id)!;
    const runsAgent = node.bash === undefined && node.approval === undefined;
    const assistant = node.assistant ?? workflow.assistant ?? defaults.assistant;
    return {
      id,
      kind,
      dependsOn: [...dependsOn],
      ...(node.when !== undefined ? { when: node.when } : {}),
      ...(node.trigger_rule !== undefined && node.trigger_rule !== 'all_success' ? { triggerRule: node.trigger_rule } : {}),
      ...(runsAgent
        ? {
            agent: {
              assistant,
              model: node.model ?? workflow.model ?? defaults.modelOf(assistant),
              permissions: node.permissions ?? workflow.permissions ?? DEFAULT_NODE_PERMISSIONS,
            },
          }
        : {}),
      ...(node.approval !== undefined ? { approval: node.approval.message } : {}),
    };
  };
  const steps = layersOf(toDrawNodes(workflow)).map((layer) => layer.map((node) => planned(node.id, node.kind, node.dependsOn)));
  return { workflow: workflow.name, steps };
}
