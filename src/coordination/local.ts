/**
 * The coordination of a process that owns its home's store alone (the file store: the writer lock
 * `svc.lock` makes it one process per SVC_HOME). Every question has the trivial answer: offered runs
 * wait in a queue here, in order, and every claim succeeds; no run executes anywhere else; every
 * run, worktree and conversation is this process's; nobody else hears announcements. What the
 * previous process of the home left unfinished is this one's at start.
 */

import type { AnsweringCoordination, Coordination, HomeCoordination, PullCoordination, QueueCoordination, RunCoordination } from './types.js';

/** Offered runs, waiting for a slot in this process: FIFO, an approved run at the front. */
function localRuns(): RunCoordination {
  let queue: string[] = [];
  const remove = (runId: string) => {
    queue = queue.filter((id) => id !== runId);
  };
  return {
    async start(announcements) {
      await announcements.orphaned(await announcements.leftBehind());
    },
    async offer(runId, { front = false } = {}) {
      remove(runId);
      if (front) queue.unshift(runId);
      else queue.push(runId);
    },
    async claim(limit) {
      return limit > 0 ? queue.splice(0, limit) : [];
    },
    async claimRun(runId) {
      remove(runId);
      return true;
    },
    async unclaim(runId) {
      if (!queue.includes(runId)) queue.push(runId);
    },
    withdraw: remove,
    get waiting() {
      return queue.length;
    },
    executesElsewhere: () => false,
    forwardStop: async () => {},
    bindHome: async () => {},
    boundElsewhere: async () => false,
    location: () => undefined,
    share: () => undefined,
    close: async () => {
      queue = [];
    },
  };
}

/** Every conversation is answered here; a message accepted here needs telling nobody. */
const localAnswering = (): AnsweringCoordination => ({
  async start(announcements) {
    announcements.taken(await announcements.leftBehind());
  },
  accepted: async () => {},
  claim: async () => true,
  holds: async () => true,
  release: async () => true,
});

/** One home: everything recorded is here, and there is no other home to tell. */
const localHomes = (): HomeCoordination => ({
  homeId: undefined,
  isHere: () => true,
  announce: async () => {},
  listen: async () => {},
});

/** One process processes every landing queue. */
const localQueues = (): QueueCoordination => ({ hold: async () => true, release: async () => {} });

/** One process follows every pull request. */
const localPulls = (): PullCoordination => ({ hold: async () => true, release: async () => {} });

export function localCoordination(): Coordination {
  return {
    serverId: undefined,
    runs: localRuns(),
    queues: localQueues(),
    pulls: localPulls(),
    answering: localAnswering(),
    homes: localHomes(),
    placesRunsAtLaunch: false,
    runsMayBeTakenOver: false,
  };
}
