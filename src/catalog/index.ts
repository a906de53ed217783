/**
 * The workflow catalog: finding workflow and command files (bundled, the project under `cwd`,
 * registered workspaces), their parse cache, saving and deleting project files, the port through
 * which discovery checks the webhook trigger registry, and the views the API and CLI show of them.
 */

export { WorkflowCatalog } from './catalog.js';
export type { CatalogOptions, RegisteredTrigger, SavedWorkflow, SecretWeakness, TriggerRegistration, TriggerRegistryPort } from './catalog.js';
export { discoverWorkflows } from './discovery.js';
export type { DiscoveredWorkflow, Discovery, DiscoveryError, DiscoverOptions, WorkflowSource } from './discovery.js';
export { WorkflowFileCache } from './file-cache.js';
export { catalogResolver } from './workflow-resolver.js';
export { listCommands, parseCommandFile, readCommand } from './commands.js';
export type { CommandEntry, CommandList } from './commands.js';
export { WORKSPACES_COLLECTION } from './project-roots.js';
export type { WorkspaceRef } from './project-roots.js';
export { BUNDLED_COMMANDS_DIR, BUNDLED_WORKFLOWS_DIR } from './bundled.js';
export { toCommandListing, toSavedDocument, toWorkflowDocument, toWorkflowListing, toWorkflowSummary } from './views.js';
export type { CommandListing, SavedWorkflowDocument, WorkflowDocument, WorkflowListing, WorkflowSummary } from './views.js';
export { toYamlText } from './project-files.js';
export { checkProjectDir, PROJECT_DIR_DESCRIPTION, ProjectDirSchema, projectDirMessage, resolveProjectDir } from './project-dir.js';
