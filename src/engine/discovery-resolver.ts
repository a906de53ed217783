import type { Store } from '../store/index.js';
import { readCommand } from '../workflows/commands.js';
import { discoverWorkflows } from '../workflows/discovery.js';
import { WorkflowFileCache } from '../workflows/file-cache.js';
import { readWorkspaces } from '../workflows/project-roots.js';
import type { WorkflowResolver } from './workflow-resolver.js';

/**
 * Resolves run workflows through discovery (project overrides bundled; registered workspaces
 * included), sharing one parse cache so starting a run re-reads only changed files.
 */
export function createDiscoveryResolver(store: Store, cache = new WorkflowFileCache()): WorkflowResolver {
  return {
    async resolve(name, cwd) {
      const discovery = await discoverWorkflows({ cwd, workspaces: await readWorkspaces(store), cache });
      const found = discovery.workflows.find((w) => w.name === name);
      return found && { workflow: found.workflow, definition: found.raw, workspaceId: found.workspaceId };
    },
    async loadCommand(name, cwd) {
      return (await readCommand(name, cwd))?.prompt;
    },
  };
}
