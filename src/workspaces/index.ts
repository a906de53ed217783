/**
 * Workspaces: registered repositories and directories, a worktree per run, env values with consent,
 * a commit per node and the diff of a run, clean-up, and where a run's branch is landed from.
 */
export { WorkspaceService, type LandingSite, type PushedCleanup, type WorkspaceBranches } from './service.js';
export type { RunWorktrees } from './run-worktrees.js';
export { isDirectory } from './local-repository.js';
export { AGE_HINT, parseAge } from './age.js';
export { type CleanupResult, CleanupResultSchema, type KeptEnvironment } from './cleanup.js';
export { changesAlreadyIn } from './branch-merged.js';
export { identityArgs } from './commits.js';
export { type DiffFile, type RunDiff, RunDiffSchema } from './diff.js';
export { GitError, runGit, runGitCapped } from './git.js';
export {
  type EnvironmentView,
  EnvironmentViewSchema,
  type Workspace,
  type WorkspaceDetail,
  WorkspaceDetailSchema,
  type WorkspaceRecord,
  WorkspaceSchema,
} from './records.js';
export { allWorkspaces, type WorkspaceRepository, openWorkspaceRepositories } from './repository.js';
export { ENV_KEY_PATTERN, type SetupCacheView } from './service.js';
export { CacheEntrySchema, type CacheEntry } from './setup-cache.js';
export type { WorktreeGit } from './worktrees.js';
export { readWorktreeConfig, readWorktreeConfigAt, WorktreeConfigError, type WorktreeConfig } from './worktree-config.js';

// Only with SVC_DATABASE_URL: loaded on first use, so the file store never loads pg (docs/decisions.md, "Footprint").
export const loadPostgresWorkspaces = () => import('./postgres-repository.js');
