import { executionPlan, type ExecutionPlan, type PlannedNode } from '../../../client/views.js';
import type { CommandContext } from '../../context.js';
import { printJson } from '../../output.js';

/** One node's line: what it does, what it waits for, its condition, and the agent it would start. */
function nodeLine(node: PlannedNode): string {
  const parts = [node.kind];
  if (node.agent) parts.push(`agent ${node.agent.assistant}${node.agent.model ? ` (${node.agent.model})` : ''}, permissions ${node.agent.permissions}`);
  if (node.approval !== undefined) parts.push(`asks "${node.approval}"`);
  if (node.dependsOn.length > 0) parts.push(`after ${node.dependsOn.join(', ')}`);
  if (node.triggerRule) parts.push(`trigger_rule ${node.triggerRule}`);
  if (node.when !== undefined) parts.push(`when ${node.when}`);
  return `${node.id}: ${parts.join(' · ')}`;
}

/** The plan as text: a numbered step per line group, the nodes of a step marked as running in parallel. */
export function planText(plan: ExecutionPlan): string {
  const nodes = plan.steps.reduce((n, step) => n + step.length, 0);
  const lines = [
    `${plan.workflow}: ${nodes} node${nodes === 1 ? '' : 's'} in ${plan.steps.length} step${plan.steps.length === 1 ? '' : 's'} (dry run: nothing was started)`,
  ];
  plan.steps.forEach((step, i) => {
    lines.push(`${i + 1}.${step.length > 1 ? ` in parallel (${step.length}):` : ''}`);
    for (const node of step) lines.push(`   ${nodeLine(node)}`);
  });
  return `${lines.join('\n')}\n`;
}

/** `svc run <workflow> --dry-run`: the execution plan of the workflow as the run would find it; nothing runs. */
export async function printPlan(cmd: CommandContext, workflow: string, cwd: string, workspaceId?: string): Promise<void> {
  const client = cmd.client();
  const [doc, config] = await Promise.all([client.workflows.get(workflow, cwd, workspaceId ? { workspaceId } : {}), client.config.get()]);
  const plan = executionPlan(doc.workflow, {
    assistant: config.defaultAssistant,
    modelOf: (name) => config.assistants[name as keyof typeof config.assistants]?.model ?? null,
  });
  if (cmd.globals.json) printJson(cmd.io, plan);
  else cmd.io.out(planText(plan));
}
