/**
 * One SSE client's response body: our own queue of encoded frames, handed to the response only as
 * it asks for more (srvx reads the body again after the socket's `drain`). Because the queue is
 * ours, its size is known to the stream writer (stream-hub.ts), which bounds it, and cutting the
 * client drops it at once: h3's EventStream queued inside a TransformStream, out of reach, and its
 * `close()` waited for a client that never read to take everything first.
 */
export interface SseBody {
  /** The response body. */
  readonly stream: ReadableStream<Uint8Array>;
  /** Bytes queued and not yet taken by the response. */
  readonly queuedBytes: number;
  /** Queues a frame; resolves when the response has taken it, or when the body has closed. */
  write(frame: Uint8Array): Promise<void>;
  /** Ends the body after what is queued, without waiting for the client to take it (a server stopping). */
  end(): void;
  /** Drops what is queued and fails the body: the response is cut where it stands. */
  abort(reason: Error): void;
  /** Runs once when the body is over, however it ended: ended, aborted, or the client left. */
  onClosed(callback: () => void): void;
}

interface Queued {
  frame: Uint8Array;
  taken: () => void;
}

export function openSseBody(): SseBody {
  let queue: Queued[] = [];
  let queuedBytes = 0;
  let closed = false;
  /** Set while the response waits for a frame (a `pull` with nothing queued). */
  let wakeReader: (() => void) | undefined;
  const closedCallbacks: Array<() => void> = [];
  let controller!: ReadableStreamDefaultController<Uint8Array>;

  /** Forgets everything it held, so a finished client keeps no frame alive. */
  const finish = () => {
    if (closed) return;
    closed = true;
    const waiting = queue;
    queue = [];
    queuedBytes = 0;
    for (const item of waiting) item.taken();
    wakeReader?.();
    wakeReader = undefined;
    for (const callback of closedCallbacks.splice(0)) callback();
  };

  const stream = new ReadableStream<Uint8Array>(
    {
      start(streamController) {
        controller = streamController;
      },
      pull() {
        const next = queue.shift();
        if (!next) return new Promise<void>((resolve) => (wakeReader = resolve));
        queuedBytes -= next.frame.byteLength;
        controller.enqueue(next.frame);
        next.taken();
        return undefined;
      },
      cancel: finish,
    },
    // Nothing is read ahead: a frame leaves the queue only when the response asks for it.
    { highWaterMark: 0 },
  );

  return {
    stream,
    get queuedBytes() {
      return queuedBytes;
    },
    write(frame) {
      if (closed) return Promise.resolve();
      if (wakeReader) {
        const wake = wakeReader;
        wakeReader = undefined;
        controller.enqueue(frame);
        wake();
        return Promise.resolve();
      }
      queuedBytes += frame.byteLength;
      return new Promise<void>((taken) => queue.push({ frame, taken }));
    },
    end() {
      if (closed) return;
      for (const item of queue) controller.enqueue(item.frame);
      controller.close();
      finish();
    },
    abort(reason) {
      if (closed) return;
      controller.error(reason);
      finish();
    },
    onClosed(callback) {
      if (closed) queueMicrotask(callback);
      else closedCallbacks.push(callback);
    },
  };
}
