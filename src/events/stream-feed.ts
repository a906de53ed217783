import type { BusEvent, EventBus } from './bus.js';
import type { Logger } from '../shared/logger.js';

/**
 * The ordering of an event stream, whoever reads it: the SSE writer (stream-hub.ts) and the CLI's
 * in-process follower (src/runtime.ts). No h3 here, so following a run in process loads none.
 * Typed by what the stream carries (`E`, conversations/events.ts, in the composition
 * root and the front ends), so it knows no domain.
 */

export interface StreamSource<E extends BusEvent> {
  /** Which live events this stream carries. */
  matches(event: E): boolean;
  /** Events after position `after` (from the store), in position order, for Last-Event-ID replay. */
  replay(after: number): Promise<E[]>;
}

/** `run_deleted` is never persisted and has no position: it is always sent, never replayed. */
export const positionOf = (event: BusEvent): number => event.pos ?? 0;

export interface FeedOptions<E extends BusEvent> {
  source: StreamSource<E>;
  /** Replay what came after this position first (Last-Event-ID); `undefined`: live events only. */
  after: number | undefined;
  /**
   * Delivers one event. Replayed events are awaited one by one (the promise settles when the reader
   * has taken the event), so a long history is paced by the reader and is no "slow reader".
   */
  write(event: E): Promise<void> | void;
  /** How much a reader may leave untaken before it is dropped; none: a reader that is never behind. */
  budget?: ReaderBudget<E>;
}

/** A bound on what one reader pins in memory (docs/decisions.md, "Streams"). */
export interface ReaderBudget<E extends BusEvent> {
  /** The most bytes a reader may have waiting: the live events the feed holds during its replay plus `waiting()`. */
  limit: number;
  /** The bytes an event takes once written. */
  sizeOf(event: E): number;
  /** Bytes written for the reader that it has not taken yet (the writer's queue and the socket's buffer). */
  waiting(): number;
  /** The reader had `bytes` waiting, over the limit: the feed has stopped; the writer cuts the connection. */
  onOverflow(bytes: number): void;
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
 * everything after reaches the buffer. A slow reader never slows the engine, and never pins more
 * than its budget: past it, the feed stops and the reader is dropped.
 */
export function openFeed<E extends BusEvent>(deps: { bus: EventBus<E>; logger: Logger }, options: FeedOptions<E>): Feed {
  const { source, budget } = options;
  let closed = false;
  let replaying = true;
  let lastSent = options.after ?? -1;
  let buffered: E[] = [];
  let bufferedBytes = 0;

  // A budget check waiting for the writer's next turn (see `checkBudget`).
  let recheck: NodeJS.Immediate | undefined;

  const close = () => {
    closed = true;
    buffered = [];
    bufferedBytes = 0;
    clearImmediate(recheck);
    unsubscribe();
  };

  /**
   * Checked as each live event arrives: that is when what a reader holds grows. Events published in
   * one go (a group of appends landing at once) are all waiting until the writer's next turn hands
   * them to the socket, so a burst past the budget is judged then: a reader that keeps up is not cut
   * for the size of one burst; one that does not read still has it all waiting, and is cut.
   */
  const checkBudget = () => {
    if (!budget || closed || recheck) return;
    if (bufferedBytes + budget.waiting() <= budget.limit) return;
    recheck = setImmediate(() => {
      recheck = undefined;
      if (closed) return;
      const bytes = bufferedBytes + budget.waiting();
      if (bytes <= budget.limit) return;
      close();
      budget.onOverflow(bytes);
    });
  };

  const send = (item: E) => {
    if (closed) return;
    const pos = positionOf(item);
    if (pos !== 0 && pos <= lastSent) return;
    if (pos !== 0) lastSent = pos;
    void options.write(item);
    checkBudget();
  };

  const unsubscribe = deps.bus.subscribe((item) => {
    if (!source.matches(item)) return;
    if (!replaying) {
      send(item);
      return;
    }
    buffered.push(item);
    if (budget) bufferedBytes += budget.sizeOf(item);
    checkBudget();
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
      const held = buffered;
      buffered = [];
      bufferedBytes = 0;
      for (const item of held) send(item);
    },
    close,
  };
}
