// How an executing run's node progress reaches its record (runs/executor/round-writes.ts): at most once
// per round, rounds closer than the interval sharing the latest write, each write after the one
// before it and after the events of the nodes it records; fenced, every round written and waited for.
import { afterEach, expect, it, vi } from 'vitest';
import { roundWrites } from '../../src/runs/executor/round-writes.js';
import type { RunRecord } from '../../src/runs/model/types.js';
import { waitFor } from '../helpers/runs.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A run store that records what it was asked to save, and refuses while `refuse` holds. */
function fakeRuns() {
  const saved: string[] = [];
  const state = { refuse: false };
  return {
    saved,
    state,
    runs: {
      save: async (run: RunRecord) => {
        if (state.refuse) return undefined;
        saved.push(run.id);
        return run;
      },
    },
  };
}

const snapshot = (label: string) => ({ id: label }) as unknown as RunRecord;
const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};

it('rounds closer than the interval share one write, of the latest snapshot, when the interval has passed', async () => {
  vi.useFakeTimers();
  const { runs, saved } = fakeRuns();
  let latest = snapshot('r1');
  const rounds = roundWrites({ runs, latest: () => latest, fence: false, onFailure: () => {}, everyMs: 10 });

  rounds.changed();
  await rounds.endRound(true); // the first: due at once
  await vi.advanceTimersByTimeAsync(0);
  expect(saved).toEqual(['r1']);

  for (const label of ['r2', 'r3', 'r4']) {
    latest = snapshot(label);
    rounds.changed();
    await rounds.endRound(true);
    await vi.advanceTimersByTimeAsync(2);
  }
  expect(saved).toEqual(['r1']); // put off: 6 ms since the last write
  await vi.advanceTimersByTimeAsync(10);
  expect(saved).toEqual(['r1', 'r4']);

  // No change, or nothing starting or running: nothing to write.
  await rounds.endRound(true);
  rounds.changed();
  await rounds.endRound(false);
  await vi.advanceTimersByTimeAsync(20);
  expect(saved).toEqual(['r1', 'r4']);
  await rounds.settled();
});

it('a write waits for the events of the nodes it records, and the next write for it', async () => {
  const { runs, saved } = fakeRuns();
  const rounds = roundWrites({ runs, latest: () => snapshot('r'), fence: false, onFailure: () => {}, everyMs: 0 });
  let land!: () => void;
  rounds.land(new Promise<void>((resolve) => (land = resolve)));
  const first = rounds.writeNow();
  const second = rounds.writeNow();
  await turns();
  expect(saved).toEqual([]);
  land();
  await Promise.all([first, second]);
  expect(saved).toEqual(['r', 'r']);
});

it('settled drops a write put off (the run end writes next) and waits for what is in flight', async () => {
  vi.useFakeTimers();
  const { runs, saved } = fakeRuns();
  const rounds = roundWrites({ runs, latest: () => snapshot('r'), fence: false, onFailure: () => {}, everyMs: 10 });
  rounds.changed();
  await rounds.endRound(true);
  await vi.advanceTimersByTimeAsync(0);
  rounds.changed();
  await rounds.endRound(true); // put off 10 ms
  let events = false;
  rounds.land(Promise.resolve().then(() => (events = true)));
  await rounds.settled();
  expect(events).toBe(true);
  await vi.advanceTimersByTimeAsync(50);
  expect(saved).toEqual(['r']);
});

it('fenced: every round written at once, endRound resolving once the store took it, rejecting when refused', async () => {
  const { runs, saved, state } = fakeRuns();
  const failures: unknown[] = [];
  let latest = snapshot('r1');
  const rounds = roundWrites({ runs, latest: () => latest, fence: true, onFailure: (error) => failures.push(error), everyMs: 10_000 });
  rounds.changed();
  await rounds.endRound(true);
  latest = snapshot('r2');
  rounds.changed();
  await rounds.endRound(true);
  expect(saved).toEqual(['r1', 'r2']);

  state.refuse = true;
  rounds.changed();
  await expect(rounds.endRound(true)).rejects.toThrow(/marked interrupted by another server/);
  expect(failures).toHaveLength(1);
  await expect(rounds.settled()).rejects.toThrow(/marked interrupted/);
});

it('a refused write put off is reported to onFailure, and by settled', async () => {
  const { runs, state } = fakeRuns();
  state.refuse = true;
  const failures: unknown[] = [];
  const rounds = roundWrites({ runs, latest: () => snapshot('r'), fence: false, onFailure: (error) => failures.push(error), everyMs: 0 });
  rounds.changed();
  await rounds.endRound(true);
  await waitFor(
    () => failures.length > 0,
    2_000,
    () => 'for the refused write to be reported',
  );
  expect(failures).toHaveLength(1);
  await expect(rounds.settled()).rejects.toThrow(/marked interrupted/);
});

it('a node event that fails while a write is in flight is reported by the next write, never left unhandled', async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const failures: unknown[] = [];
  const rounds = roundWrites({
    runs: { save: async (run: RunRecord) => (await gate, run) },
    latest: () => snapshot('r'),
    fence: false,
    onFailure: (error) => failures.push(error),
    everyMs: 0,
  });
  const first = rounds.writeNow(); // in flight until released
  rounds.land(Promise.reject(new Error('ENOSPC: the event could not be appended')));
  const second = rounds.writeNow(); // its events failed before it could even start
  second.catch(() => {}); // looked at below
  await new Promise((resolve) => setTimeout(resolve, 20)); // past the turn where Node reports an unhandled rejection
  release();
  await first;
  await expect(second).rejects.toThrow(/ENOSPC/);
  expect(failures).toHaveLength(1);
  await expect(rounds.settled()).rejects.toThrow(/ENOSPC/);
});

it('rounds coming faster than a slow store writes wait for the write in flight: the latest follows it, nothing piles up', async () => {
  let saves = 0;
  const rounds = roundWrites({
    runs: {
      save: async (run: RunRecord) => {
        saves += 1;
        await new Promise((resolve) => setTimeout(resolve, 40));
        return run;
      },
    },
    latest: () => snapshot('r'),
    fence: false,
    onFailure: () => {},
    everyMs: 10,
  });
  const started = performance.now();
  while (performance.now() - started < 300) {
    rounds.changed();
    await rounds.endRound(true);
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
  const asked = performance.now();
  await rounds.settled();
  // One write at a time, each 40 ms plus the interval: about six in 300 ms, not one per 10 ms.
  expect(saves).toBeLessThanOrEqual(10);
  expect(saves).toBeGreaterThanOrEqual(2);
  // Nothing queued behind: settling waits for about one write (queued, ~30 writes of 40 ms took ~1.2 s).
  expect(performance.now() - asked).toBeLessThan(600);
});
