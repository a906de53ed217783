/**
 * Where followed pull requests are kept (docs/decisions.md, "Pull request reactions"), behind an
 * async, query-shaped repository so PostgreSQL can take the file store's place
 * (postgres-repository.ts): one record per run whose pull request is followed.
 */

import { isDeepStrictEqual } from 'node:util';
import type { Store } from '../store/index.js';
import { cleanStrings } from './clean-text.js';
import type { PullFollow } from './records.js';

export interface PullRepository {
  /**
   * Stores the run's follow unless it has one; resolves to it, or undefined when one was there.
   * Every store keeps a follow's strings as `cleanStrings` makes them (no NUL, control character or
   * lone surrogate: PostgreSQL's jsonb refuses them), and compares `replaceIf`'s `expected` so too.
   */
  add(follow: PullFollow): Promise<PullFollow | undefined>;
  get(runId: string): Promise<PullFollow | undefined>;
  /**
   * Active follows to look at by `now` (their `nextLookAt` passed), soonest first, at most `limit`;
   * never one another live server holds (on a shared database each server's timer asks with its own
   * id, postgres-repository.ts), so another's pull requests do not fill the batch and starve its own.
   * The file store is one process's (the store's lock): no other holds anything, so none is left out.
   */
  due(now: string, limit: number): Promise<PullFollow[]>;
  /** The active follows of a pull request (`repo`, `number`) or of a head branch: what a webhook delivery names. */
  find(query: { repo: string; number: number } | { branch: string }): Promise<PullFollow[]>;
  /** Replaces the follow only while it is still `expected` (every field equal); resolves to whether it did. */
  replaceIf(expected: PullFollow, next: PullFollow): Promise<boolean>;
  /** Removes the run's follow (its run was deleted). */
  remove(runId: string): Promise<boolean>;
}

export const PULLS_COLLECTION = 'pull-follows';

type Stored = PullFollow & { id: string };
const followOf = ({ id: _id, ...follow }: Stored): PullFollow => follow;
const byNextLook = (a: PullFollow, b: PullFollow) => (a.nextLookAt < b.nextLookAt ? -1 : a.nextLookAt > b.nextLookAt ? 1 : 0);

export async function openPullRepository(store: Store): Promise<PullRepository> {
  const collection = await store.collection<Stored>(PULLS_COLLECTION, 'per-record');
  return {
    // Checked and set in one synchronous step: one process, one writer (the store's lock).
    async add(dirty) {
      const follow = cleanStrings(dirty);
      if (collection.get(follow.runId)) return undefined;
      await collection.put({ ...follow, id: follow.runId });
      return follow;
    },
    get: async (runId) => {
      const stored = collection.get(runId);
      return stored && followOf(stored);
    },
    due: async (now, limit) =>
      collection
        .filter((f) => f.active && f.nextLookAt <= now)
        .map(followOf)
        .sort(byNextLook)
        .slice(0, limit),
    find: async (query) =>
      collection.filter((f) => f.active && ('branch' in query ? f.branch === query.branch : f.repo === query.repo && f.number === query.number)).map(followOf),
    async replaceIf(expected, next) {
      const stored = collection.get(expected.runId);
      if (!stored || !isDeepStrictEqual(followOf(stored), cleanStrings(expected))) return false;
      await collection.put({ ...cleanStrings(next), id: next.runId });
      return true;
    },
    remove: (runId) => collection.delete(runId),
  };
}
