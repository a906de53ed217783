/**
 * Landing a run's branch: merge it into a branch of its workspace, push it, open a pull request
 * (`LandingService`), the texts of the merge commit and pull request, and the record on the run.
 */

export { LandingService, type MergeInput, type PullRequestInput } from './service.js';
export { MERGE_STRATEGIES, type MergeResult, type MergeStrategy } from './merge.js';
export { LANDABLE_STATUSES, type Landing, type RunMerged, type RunPullRequest } from './landing-record.js';
