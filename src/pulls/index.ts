/**
 * Pull requests followed (docs/decisions.md, "Pull request reactions"): a run's pull request looked
 * at until it is merged or closed; a failed check or a review asking for changes answered by a
 * follow-on run whose result is pushed to the pull request's branch, at most `max_fix_cycles` times,
 * then a person is asked.
 */
export { PullFollowing, DEFAULT_MAX_FIX_CYCLES, DEFAULT_ON_CI_FAILURE, DEFAULT_ON_REVIEW, type PullDetail } from './service.js';
export type { PullDeps } from './deps.js';
export { PullFollowSchema, PullViewSchema, toPullView, type PullFollow, type PullView } from './records.js';
export { openPullRepository, PULLS_COLLECTION, type PullRepository } from './repository.js';
export { excerptOf, EXCERPT_AFTER, EXCERPT_BEFORE, EXCERPT_MAX_CHARS, type LogExcerpt } from './ci-log.js';
export { githubDeliveryRefs, GITHUB_EVENTS } from './delivery.js';
export { GITHUB_EVENT_HEADER, GITHUB_SIGNATURE_HEADER } from './github-webhook.js';

// Only with SVC_DATABASE_URL: loaded on first use, so the file store never loads pg (docs/decisions.md, "Footprint").
export const loadPostgresPulls = () => import('./postgres-repository.js');
