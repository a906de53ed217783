import type { SvcStreamEvent } from '../conversations/index.js';
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../shared/logger.js';

/**
 * The ordering of an event stream, whoever reads it: the SSE writer (stream-hub.ts) and the CLI's
 * in-process follower (src/runtime.ts). No h3 here, so following a run in process loads none.
 */

/** A reader more than this many events behind is dropped; over SSE it reconnects with Last-Event-ID. */
export const MAX_CLIENT_BACKLOG = 2048;

export interface StreamSource {
  /** Which live events this stream carries. */
  matches(event: SvcStreamEvent): boolean;
  /** Events after position `after` (from the store), in position order, for Last-Event-ID replay. */
  replay(after: number): Promise<SvcStreamEvent[]>;
}

/** `run_deleted` is never persisted and has no position: it is always sent, never replayed. */
export const positionOf = (event: SvcStreamEvent) => ('pos' in event ? event.pos : 0);

export interface FeedOptions {
  source: StreamSource;
  /** Replay what came after this position first (Last-Event-ID); `undefined`: live events only. */
  after: number | undefined;
  /**
   * Delivers one event. A promise (a write to a socket) counts against the reader's backlog until
   * it settles; replayed events are awaited one by one, so a long history is no "slow reader".
   */
  write(event: SvcStreamEvent): Promise<void> | void;
  /** The reader fell `backlog` events behind: the feed has stopped; the writer closes its end. */
  onOverflow(backlog: number): void;
}

export interface Feed {
  /** Replays from the store up to the subscribe point, then flushes the buffer minus what the replay sent; live after. */
  start(): Promise<void>;
  /** Stops delivering and unsubscribes. */
  close(): void;
}

/**
 * Subscribes at once (buffering), so that with `start()` no event is lost or doubled in the gap
 * between the store and the bus: everything published before the subscription is on disk,
 * everything after reaches the buffer. A slow reader never slows the engine: its backlog is bounded.
 */
export function openFeed(deps: { bus: EventBus<SvcStreamEvent>; logger: Logger }, options: FeedOptions): Feed {
  const { source } = options;
  let backlog = 0;
  let closed = false;
  let replaying = true;
  let lastSent = options.after ?? -1;
  const buffered: SvcStreamEvent[] = [];

  const close = () => {
    closed = true;
    unsubscribe();
  };

  const send = (item: SvcStreamEvent) => {
    if (closed) return;
    const pos = positionOf(item);
    if (pos !== 0 && pos <= lastSent) return;
    if (pos !== 0) lastSent = pos;
    if (backlog >= MAX_CLIENT_BACKLOG) {
      close();
      options.onOverflow(backlog);
      return;
    }
    const written = options.write(item);
    if (!written) return;
    backlog++;
    void written.finally(() => backlog--);
  };

  const unsubscribe = deps.bus.subscribe((item) => {
    if (!source.matches(item)) return;
    if (replaying) buffered.push(item);
    else send(item);
  });
  const replayUpTo = deps.bus.lastPosition;

  return {
    async start() {
      if (options.after !== undefined) {
        try {
          for (const item of await source.replay(options.after)) {
            if (closed) break;
            const pos = positionOf(item);
            if (pos > replayUpTo || pos <= lastSent) continue;
            lastSent = pos;
            await options.write(item);
          }
        } catch (error) {
          deps.logger.error('stream.replay_failed', { error: (error as Error).message });
        }
      }
      replaying = false;
      for (const item of buffered.splice(0)) send(item);
    },
    close,
  };
}
