/** The events folder's front door: what the rest of svc may use of it. */
export { EventBus, type EventPublisher } from './bus.js';
export { type StreamSource, openFeed, positionOf } from './stream-feed.js';
export { type RunEventFilter, inStream, inStreamSql } from './stream-membership.js';
