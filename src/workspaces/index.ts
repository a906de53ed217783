/**
 * Workspaces: registered repositories and directories, a worktree per run, env values with consent,
 * a commit per node and the diff of a run, clean-up, and where a run's branch is landed from.
 */
export { WorkspaceService, type LandingSite } from './service.js';
export { isDirectory } from './local-repository.js';
