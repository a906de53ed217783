// The one timer of timed wake-ups (docs/decisions.md, "Waits and signals"): a run whose `wakeAt`
// stays due after its keep — a keep that fails, or a hostile record no kind clears — is looked at
// again after a pause, never in a loop that holds the server's event loop.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunStreamEvent } from '../../src/runs/model/events.js';
import { freshNodeState } from '../../src/runs/model/node-state.js';
import { RunWakeUps } from '../../src/runs/wake-ups/wake-ups.js';
import { RunStore } from '../../src/runs/storage/run-store.js';
import type { RunRecord } from '../../src/runs/model/types.js';
import { EventBus } from '../../src/events/bus.js';
import { silentLogger } from '../../src/shared/logger.js';
import { openFileStore, type Store } from '../../src/store/index.js';

const past = new Date(Date.now() - 60_000).toISOString();

/** A failed run with a wake-up time and no auto-resume appointment: nothing will ever clear it. */
const stuck = (): RunRecord => ({
  id: 'run_000001stuck',
  workflow: 'build',
  status: 'failed',
  message: 'task',
  conversationId: null,
  platformId: 'wkr_stuck',
  workspaceId: null,
  cwd: '/srv/project',
  trigger: 'api',
  createdAt: past,
  startedAt: past,
  finishedAt: past,
  updatedAt: past,
  error: 'failed',
  costUsd: null,
  nodes: { build: freshNodeState() },
  resumePending: false,
  variables: {},
  definition: 'name: build\nnodes: []\n',
  autoResumeAt: null,
  wakeAt: past,
});

describe('run wake-ups', () => {
  let home: string;
  let store: Store;
  let runs: RunStore;
  let wakeUps: RunWakeUps | undefined;

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-wake-ups-'));
    store = await openFileStore({ home, logger: silentLogger, lock: 'cli' });
    runs = await RunStore.open(store, new EventBus<RunStreamEvent>());
  });

  afterEach(async () => {
    await wakeUps?.close();
    await store.close();
    await rm(home, { recursive: true, force: true });
  });

  it('an appointment that stays due after its keep is tried again after a pause, not in a busy loop', async () => {
    await runs.save(stuck());
    let keeps = 0;
    // A keep that never clears the appointment, as a kind whose claim keeps failing.
    wakeUps = new RunWakeUps(runs, [{ name: 'stuck', statuses: ['failed'], keep: async () => void keeps++ }], silentLogger);
    await wakeUps.start();
    // Time passes on purpose: the pause between tries is a real timer (RunWakeUps takes no clock), and the count over 1.5 s is the check.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // At start-up, then once a second at most: without the pause it fired hundreds of times.
    expect(keeps).toBeGreaterThanOrEqual(1);
    expect(keeps).toBeLessThanOrEqual(3);
  });
});
