import type { RunStore } from './run-store.js';
import type { RunRecord } from './types.js';

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
  let lastWriteAt = 0;
  let putOff: NodeJS.Timeout | undefined;
  const landing: Array<Promise<unknown>> = [];
  const landed = () => Promise.all(landing.splice(0));

  // Written only while the stored run is still `running`: with several servers on one database, one
  // that missed its lease finds its run marked interrupted by another, and stops it (docs/scaling.md).
  const write = (): Promise<void> => {
    unsaved = false;
    lastWriteAt = Date.now();
    const snapshot = options.latest();
    const before = landed();
    // After the write before it (an older snapshot never lands last) and after what its nodes had in flight.
    const next = written.then(async () => {
      await before;
      if (!(await options.runs.save(snapshot, ROUND_WRITE, 'running'))) {
        throw new Error('the run was marked interrupted by another server (this one missed its lease)');
      }
    });
    next.catch(options.onFailure);
    written = next;
    return next;
  };

  const writeLatest = () => {
    putOff = undefined;
    if (unsaved) void write().catch(() => {}); // its failure went to onFailure; `settled` reports it
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
      if (!unsaved || !active) return;
      if (options.fence) return write();
      putOff ??= setTimeout(writeLatest, lastWriteAt + everyMs - Date.now());
    },
    writeNow: () => write(),
    async settled() {
      clearTimeout(putOff);
      putOff = undefined;
      await written;
      await landed();
    },
  };
}
