/**
 * Per-key call order for a process's statements. The file store resolves the writes of one record
 * in the order they were asked (its write queue), and callers rely on it: a conversation's sends
 * are queued for answering in the order their messages were stored. A pool runs statements on
 * several connections at once, so two calls made in order may finish in the other order; chaining
 * the calls of one key restores the file store's behaviour. Other keys still run concurrently.
 */
export function callOrder(): <T>(key: string, work: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return (key, work) => {
    const previous = tails.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const tail = next.catch(() => {});
    tails.set(key, tail);
    // The map keeps only keys with calls in flight.
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return next;
  };
}
