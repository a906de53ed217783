/**
 * Landing a run's branch: merge it into a branch of its workspace, push it, open a pull request
 * (`LandingService`), the texts of the merge commit and pull request, and the record on the run;
 * the conflict forecast of a workspace's unlanded branches (`ConflictForecast`, on `ConflictPairs`).
 * The landing queue (queue/) lands through the same steps, one entry at a time.
 */

export { LandingService, type MergeInput, type PullRequestInput } from './service.js';
export {
  MERGE_STRATEGIES,
  alreadyIn,
  assertCleanCheckout,
  branchContains,
  branchTips,
  landingCommit,
  moveBranch,
  pushBranch,
  type MergeRequest,
  type MergeResult,
  type MergeStrategy,
} from './merge.js';
export { LANDABLE_STATUSES, assertLandable, recordLanding, type Landing, type RunMerged, type RunPullRequest } from './landing-record.js';
export { runSubject } from './landing-text.js';
export { ghFailure, runGh, type GhResult } from './gh.js';
export { ConflictForecast } from './forecast.js';
export { ConflictPairs, FORECAST_FILES_LIMIT, type PairForecast } from './conflict-pairs.js';
export { mergeTree, type MergeTreeOutcome } from './merge-tree.js';
export { type ConflictEntry, TARGET_SIDE, type WorkspaceConflicts, WorkspaceConflictsSchema } from './forecast-schema.js';
