/**
 * Where the landing queue keeps its entries (docs/decisions.md, "Landing queue"), behind an async,
 * query-shaped repository so PostgreSQL can take the file store's place (postgres-repository.ts):
 * one record per run entered, its place a number that only grows.
 */

import { isDeepStrictEqual } from 'node:util';
import type { Store } from '../store/index.js';
import { OPEN_STATES, type QueueEntry, type QueueState } from './records.js';

export interface QueueQuery {
  workspaceId: string;
  target?: string | undefined;
  states?: readonly QueueState[] | undefined;
  /** Only the entries waiting for their rework run (`awaitingRework`). */
  awaitingRework?: boolean | undefined;
  limit?: number | undefined;
}

export interface QueueRepository {
  /**
   * Stores a new entry after every other (its `position` given here), or at `at` (a rework run takes
   * the place of the entry it reworks); undefined when the run has an entry already.
   */
  enter(entry: Omit<QueueEntry, 'position'>, at?: number): Promise<QueueEntry | undefined>;
  get(runId: string): Promise<QueueEntry | undefined>;
  /** A workspace's entries in queue order (target, then position, then when entered), those in `states` only when given. */
  list(query: QueueQuery): Promise<QueueEntry[]>;
  /** The queues with an entry still to land (queued, verifying, paused) or waiting for its rework run. */
  open(): Promise<Array<{ workspaceId: string; target: string }>>;
  /** Replaces the entry only while it is still `expected` (every field equal); resolves to whether it did. */
  replaceIf(expected: QueueEntry, next: QueueEntry): Promise<boolean>;
  /** Removes the run's entry (its run was deleted). */
  remove(runId: string): Promise<boolean>;
}

export const QUEUE_COLLECTION = 'landing-queue';

type Stored = QueueEntry & { id: string };
const entryOf = ({ id: _id, ...entry }: Stored): QueueEntry => entry;
/** By target, then place; a rework run shares the place of the entry it reworks, and comes after it. */
const byQueueOrder = (a: QueueEntry, b: QueueEntry) =>
  a.target !== b.target ? (a.target < b.target ? -1 : 1) : a.position - b.position || (a.enteredAt < b.enteredAt ? -1 : a.enteredAt > b.enteredAt ? 1 : 0);

export async function openQueueRepository(store: Store): Promise<QueueRepository> {
  const collection = await store.collection<Stored>(QUEUE_COLLECTION, 'per-record');
  return {
    // Checked and set in one synchronous step: one process, one writer (the store's lock).
    async enter(entry, at) {
      if (collection.get(entry.runId)) return undefined;
      const position = at ?? collection.all().reduce((last, e) => Math.max(last, e.position), 0) + 1;
      const stored = { ...entry, position, id: entry.runId };
      await collection.put(stored);
      return entryOf(stored);
    },
    get: async (runId) => {
      const stored = collection.get(runId);
      return stored && entryOf(stored);
    },
    list: async ({ workspaceId, target, states, awaitingRework, limit }) =>
      collection
        .filter(
          (e) =>
            e.workspaceId === workspaceId &&
            (target === undefined || e.target === target) &&
            (!states || states.includes(e.state)) &&
            (!awaitingRework || e.awaitingRework),
        )
        .map(entryOf)
        .sort(byQueueOrder)
        .slice(0, limit ?? Number.MAX_SAFE_INTEGER),
    async open() {
      const queues = new Map<string, { workspaceId: string; target: string }>();
      for (const e of collection.filter((e) => OPEN_STATES.includes(e.state) || e.awaitingRework))
        queues.set(`${e.workspaceId}\0${e.target}`, { workspaceId: e.workspaceId, target: e.target });
      return [...queues.values()];
    },
    async replaceIf(expected, next) {
      const stored = collection.get(expected.runId);
      if (!stored || !isDeepStrictEqual(entryOf(stored), expected)) return false;
      await collection.put({ ...next, id: next.runId });
      return true;
    },
    remove: (runId) => collection.delete(runId),
  };
}
