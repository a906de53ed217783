import type { WorkflowCatalog } from '../catalog/index.js';
import type { ScheduledWorkflow } from './service.js';

/** Every schedule of the workflows the server sees (its directory and the registered workspaces): what `ScheduleService` fires. */
export async function scheduledWorkflows(catalog: Pick<WorkflowCatalog, 'discover' | 'resolveCwd'>, cwd?: string): Promise<ScheduledWorkflow[]> {
  const discovery = await catalog.discover(cwd, { triggersOnly: true });
  const dir = await catalog.resolveCwd(cwd);
  return discovery.workflows.flatMap((w) =>
    (w.workflow.triggers.schedule ?? []).map((schedule, index) => ({
      workflow: w.name,
      filename: w.filename,
      cwd: w.root ?? dir,
      workspaceId: w.workspaceId,
      index,
      schedule,
    })),
  );
}
