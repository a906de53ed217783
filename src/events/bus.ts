/**
 * In-process publish/subscribe for everything that streams: run events and conversation events.
 * The engine publishes after persisting; SSE streams and CLI followers subscribe. Listeners are
 * called synchronously and must not block: a slow consumer buffers on its own side.
 */
export interface StreamEvent {
  type: string;
  at: string;
  runId?: string;
  conversationId?: string | null;
  nodeId?: string;
  seq?: number;
  [key: string]: unknown;
}

/** What the bus needs of an event: a type, and (persisted events) a stream position. */
export interface BusEvent {
  type: string;
  pos?: number;
}

export type Listener<E extends BusEvent = StreamEvent> = (event: E) => void;

/** What a producer of persisted events needs of the bus: positions and ordered publishing. */
export interface EventPublisher<E extends BusEvent> {
  nextPosition(): number;
  publish(event: E): void;
  /**
   * Publishes what `stored` resolves to: every persisted event, run or conversation, on either
   * store, gets its position as its append is asked and is published from what the store returns.
   */
  publishWhenStored(stored: Promise<E>): void;
}

/** Typed by what it carries: the composition root makes it carry `RunStreamEvent` (runs/model/events.ts). */
export class EventBus<E extends BusEvent = StreamEvent> implements EventPublisher<E> {
  #listeners = new Set<Listener<E>>();
  /**
   * Starts at this process's start: every position below it was handed out by an earlier server,
   * whose events are all on disk, so a Last-Event-ID replay (events/stream-feed.ts) sends them
   * even before this server publishes its first event. Starting at 0 made every replay after a
   * restart empty until then: a dashboard left open never learnt how its runs ended.
   */
  #lastPosition = Date.now() * 1000;
  #clock = this.#lastPosition;
  #publishTail: Promise<void> = Promise.resolve();

  /**
   * The next stream position: a hybrid clock (microseconds of wall time, bumped so positions never
   * repeat or go back), one for every persisted stream (run events and conversation events), so a
   * stream that carries both can trust that positions only grow (docs/decisions.md, "Streams").
   */
  nextPosition(): number {
    this.#clock = Math.max(this.#clock + 1, Date.now() * 1000);
    return this.#clock;
  }

  /**
   * Publishes the event `stored` resolves to, once every event given earlier has been published:
   * appends of different logs finish in any order, but the store gives positions in the order it
   * is asked (docs/decisions.md, "PostgreSQL store"), so an event is published only after every event
   * with a lower position. Nothing is published for a failed write.
   */
  publishWhenStored(stored: Promise<E>): void {
    this.#publishTail = this.#publishTail.then(() =>
      stored.then(
        (event) => this.publish(event),
        () => undefined,
      ),
    );
  }

  /** The highest stream position published so far: every event up to it is already persisted. */
  get lastPosition(): number {
    return this.#lastPosition;
  }

  publish(event: E): void {
    if (typeof event.pos === 'number' && event.pos > this.#lastPosition) this.#lastPosition = event.pos;
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // One broken subscriber must not stop delivery to the others or the engine.
      }
    }
  }

  /** Returns the unsubscribe function. */
  subscribe(listener: Listener<E>): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }
}
