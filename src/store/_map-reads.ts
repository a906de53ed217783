import type { Collection, Identified } from './types.js';

/** The read side every in-memory collection shares: answered from the map, never from disk. */
export function mapReads<T extends Identified>(items: Map<string, T>): Pick<Collection<T>, 'all' | 'get' | 'find' | 'filter' | 'size'> {
  return {
    all: () => [...items.values()],
    get: (id) => items.get(id),
    find: (predicate) => {
      for (const item of items.values()) if (predicate(item)) return item;
      return undefined;
    },
    filter: (predicate) => [...items.values()].filter(predicate),
    get size() {
      return items.size;
    },
  };
}
