/**
 * The landing queue (docs/decisions.md, "Landing queue"): a queue per workspace and target branch
 * whose entries land one at a time, in order, each verified on exactly the commit that lands.
 */
export { LandingQueue, type EnterInput, type LandingQueueDeps } from './service.js';
export { OPEN_STATES, QUEUE_STATES, QUEUE_STRATEGIES, QueueEntrySchema, QueueViewSchema, type QueueEntry, type QueueState, type QueueView } from './records.js';
export { openQueueRepository, QUEUE_COLLECTION, type QueueQuery, type QueueRepository } from './repository.js';

// Only with SVC_DATABASE_URL: loaded on first use, so the file store never loads pg (docs/decisions.md, "Footprint").
export const loadPostgresQueue = () => import('./postgres-repository.js');
