import type { WorkflowCatalog } from './catalog.js';
import type { WorkflowResolver } from '../runs/index.js';

/**
 * Runs find their workflow through the same catalog the API lists (one parse cache, the same
 * override rules, the same workspace first); an unknown name is its 404 `workflow_not_found`,
 * naming broken files of that name.
 */
export function catalogResolver(catalog: WorkflowCatalog): WorkflowResolver {
  return {
    async resolve(name, cwd, workspaceId) {
      const { found, workspaceHere } = await catalog.lookup(name, cwd, workspaceId);
      return { workflow: found.workflow, definition: found.raw, workspaceId: found.workspaceId, workspaceHere };
    },
    async loadCommand(name, cwd) {
      return (await catalog.readCommand(name, cwd))?.prompt;
    },
  };
}
