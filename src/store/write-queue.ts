/**
 * Serializes writes per key and coalesces bursts: while one write of a key is in flight, later
 * requests replace the pending one, and every waiter resolves when the newest value is on disk.
 * Without it two quick writes of one record could race and the older could win the rename.
 */
export class WriteQueue {
  #inFlight = new Map<string, Promise<void>>();
  #pending = new Map<string, { write: () => Promise<void>; waiters: Array<{ resolve(): void; reject(e: unknown): void }> }>();

  enqueue(key: string, write: () => Promise<void>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const pending = this.#pending.get(key);
      if (pending) {
        pending.write = write;
        pending.waiters.push({ resolve, reject });
        return;
      }
      this.#pending.set(key, { write, waiters: [{ resolve, reject }] });
      if (!this.#inFlight.has(key)) this.#drain(key);
    });
  }

  #drain(key: string): void {
    const next = this.#pending.get(key);
    if (!next) {
      this.#inFlight.delete(key);
      return;
    }
    this.#pending.delete(key);
    const run = next.write().then(
      () => next.waiters.forEach((w) => w.resolve()),
      (error: unknown) => next.waiters.forEach((w) => w.reject(error)),
    );
    this.#inFlight.set(
      key,
      run.finally(() => this.#drain(key)),
    );
  }

  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight.values()]);
  }
}
