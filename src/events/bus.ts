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

export type Listener = (event: StreamEvent) => void;

export class EventBus {
  #listeners = new Set<Listener>();
  #lastPosition = 0;

  /** The highest stream position published so far: every event up to it is already persisted. */
  get lastPosition(): number {
    return this.#lastPosition;
  }

  publish(event: StreamEvent): void {
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
  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }
}
