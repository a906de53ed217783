import type { RunStore } from '../storage/run-store.js';
import type { RunRecord } from '../model/types.js';

/** Node progress within a run: atomic, not fsynced (docs/decisions.md, "Engine overhead"). */
const ROUND_WRITE = { sync: false } as const;

/**
 * The least time between two round writes of a run not fenced by them: the rounds of a quick chain
 * (a node every few ms) share one write, the latest, instead of rewriting the whole record for each.
 */
export const ROUND_WRITE_EVERY_MS = 10;

export interface RoundWritesOptions {
  runs: Pick<RunStore, 'save'>;
  /** The run's latest snapshot, as the executor keeps it. */
  latest(): RunRecord;
  /**
   * Another server may take the run over (coordination `runsMayBeTakenOver`): every round is then
   * written, and `endRound` resolves only once the store took it — the round's processes wait.
   */
  fence: boolean;
  /** A write was refused or failed: the executor stops the run's processes at once. */
  onFailure(error: unknown): void;
  /** @default ROUND_WRITE_EVERY_MS */
  everyMs?: number;
}

/**
 * How an executing run's node progress reaches its record (docs/decisions.md, "Engine overhead"):
 * once per scheduling round at most, rounds less than `everyMs` apart sharing one write, each write
 * after the one before it and after what the nodes it records had in flight (their events). The
 * processes a round starts do not wait for its write unless it is their fence.
 */
export interface RoundWrites {
  /** The run's node state changed in memory since it was last written. */
  changed(): void;
  /** Work a node still has in flight (its events, its process note's removal): the next write waits for it, and so does `settled`. */
  land(work: Promise<unknown>): void;
  /**
   * A round decided what to start. With changes and something starting or running, its write is
   * asked: at once when fenced (resolving once taken; rejecting when refused), else within
   * `everyMs` of the last one.
   */
  endRound(active: boolean): Promise<void>;
  /** The latest snapshot written now, whatever the interval (what the run's detail must show at once). */
  writeNow(): Promise<void>;
  /**
   * No more rounds: a write put off is dropped (the run's end is written next with these nodes);
   * resolves when every write and landing asked so far has, rejecting with the first failure.
   */
  settled(): Promise<void>;
}

export function roundWrites(options: RoundWritesOptions): RoundWrites {
  const everyMs = options.everyMs ?? ROUND_WRITE_EVERY_MS;
  let unsaved = false;
  // The writes, one after the other: the latest settles when every earlier one has.
  let written: Promise<void> = Promise.resolve();
  // A write asked and not settled yet: an unfenced round waits for it, then the latest is written.
  let inFlight = false;
  // When the last write settled (a monotonic clock: a wall-clock step must not put a write off for hours).
  let lastWriteAt = -Infinity;
  let putOff: NodeJS.Timeout | undefined;
  // After `settled`: the executor has returned, and the run's end is written by its caller.
  let over = false;
  const landing: Array<Promise<unknown>> = [];
  const landed = () => Promise.all(landing.splice(0));

  /** The latest round within `everyMs` of the last write, once none is in flight. */
  const putOffLatest = () => {
    if (over || inFlight || putOff) return;
    const wait = Math.min(Math.max(lastWriteAt + everyMs - performance.now(), 0), everyMs);
    putOff = setTimeout(() => {
      putOff = undefined;
      if (unsaved && !over) void write().catch(() => {}); // its failure went to onFailure; `settled` reports it
    }, wait);
  };

  // Written only while the stored run is still `running`: with several servers on one database, one
  // that missed its lease finds its run marked interrupted by another, and stops it (docs/scaling.md).
  const write = (): Promise<void> => {
    unsaved = false;
    inFlight = true;
    const snapshot = options.latest();
    const before = landed();
    before.catch(() => {}); // waited for below, after the write before this one; a failure must not go unhandled meanwhile
    // After the write before it (an older snapshot never lands last) and after what its nodes had in flight.
    const next = written.then(async () => {
      await before;
      if (!(await options.runs.save(snapshot, ROUND_WRITE, 'running'))) {
        throw new Error('the run was marked interrupted by another server (this one missed its lease)');
      }
    });
    next.catch(options.onFailure);
    written = next;
    void next
      .finally(() => {
        if (written !== next) return; // a later write is in flight
        inFlight = false;
        lastWriteAt = performance.now();
        // Rounds that came while it was in flight: their latest, within the interval.
        if (unsaved && !options.fence) putOffLatest();
      })
      .catch(() => {});
    return next;
  };

  return {
    changed: () => {
      unsaved = true;
    },
    land: (work) => {
      work.catch(() => {}); // its failure surfaces where it is waited for, not as unhandled meanwhile
      landing.push(work);
    },
    async endRound(active) {
      if (!unsaved || !active || over) return;
      if (options.fence) return write();
      putOffLatest();
    },
    // Once the executor has returned, the run's end is on its way: nothing of a round is written after it.
    writeNow: () => (over ? Promise.resolve() : write()),
    async settled() {
      over = true;
      clearTimeout(putOff);
      putOff = undefined;
      await written;
      await landed();
    },
  };
}
