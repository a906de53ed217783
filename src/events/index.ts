/**
 * Everything that streams: the in-process bus with its one position clock, the ordered feed a stream
 * reader gets (replay, then live, within a byte budget), and which runs' events a stream carries.
 */
export { EventBus, type EventPublisher } from './bus.js';
export { type StreamSource, openFeed, positionOf } from './stream-feed.js';
export { type RunEventFilter, inStream, inStreamSql } from './stream-membership.js';
