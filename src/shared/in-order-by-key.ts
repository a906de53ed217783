/**
 * Per-key call order: `work` of one key starts only once every work of that key asked before it has
 * settled, so its writes resolve, and land, in the order they were asked whatever store answers them
 * (a pool runs statements on several connections at once). Other keys still run concurrently.
 */
export function inOrderByKey(): <T>(key: string, work: () => Promise<T>) => Promise<T> {
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
