import type { WorkflowCatalog } from './catalog.js';
import type { WorkflowResolver } from '../runs/index.js';

/**
 * Runs find their workflow through the same catalog the API lists (one parse cache, the same
 * override rules); an unknown name is its 404 `workflow_not_found`, naming broken files of that name.
 */
export function catalogResolver(catalog: WorkflowCatalog): WorkflowResolver {
  return {
    async resolve(name, cwd) {
      const found = await catalog.get(name, cwd);
      return { workflow: found.workflow, definition: found.raw, workspaceId: found.workspaceId };
    },
    async loadCommand(name, cwd) {
      return (await catalog.readCommand(name, cwd))?.prompt;
    },
  };
}
