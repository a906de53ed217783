// Run records are immutable snapshots (docs/decisions.md, "Run snapshots"): a transition makes and
// saves the next one and leaves the one it was given as it was; every record the run store hands out
// is frozen, nodes and all; a change decided on a stale snapshot is refused, not written over.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { moveNode } from '../../src/runs/model/lifecycle.js';
import { RunChangedElsewhere, transition } from '../../src/runs/storage/transition.js';
import { freshNodeState } from '../../src/runs/model/node-state.js';
import { RunStore } from '../../src/runs/storage/run-store.js';
import type { RunStreamEvent } from '../../src/runs/model/events.js';
import type { RunRecord } from '../../src/runs/model/types.js';
import { EventBus } from '../../src/events/bus.js';
import { silentLogger } from '../../src/shared/logger.js';
import { openFileStore, type Store } from '../../src/store/index.js';
import { statusOf } from '../../src/shared/error-answer.js';

const at = new Date(Date.UTC(2026, 0, 1)).toISOString();

const newRun = (): RunRecord => ({
  id: 'run_000001snap',
  workflow: 'build',
  status: 'pending',
  message: 'task',
  conversationId: null,
  platformId: 'wkr_snap',
  workspaceId: null,
  cwd: '/srv/project',
  trigger: 'api',
  createdAt: at,
  startedAt: null,
  finishedAt: null,
  updatedAt: at,
  error: null,
  costUsd: null,
  nodes: { build: freshNodeState() },
  resumePending: false,
  variables: {},
  definition: 'name: build\nnodes: []\n',
});

describe('run snapshots', () => {
  let home: string;
  let store: Store;
  let runs: RunStore;

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-snapshots-'));
    store = await openFileStore({ home, logger: silentLogger, lock: 'cli' });
    runs = await RunStore.open(store, new EventBus<RunStreamEvent>());
  });

  afterEach(async () => {
    await store.close();
    await rm(home, { recursive: true, force: true });
  });

  it('a transition resolves to the new snapshot and leaves the one it was given unchanged', async () => {
    const created = await transition(runs, newRun(), 'create', { events: [{ type: 'run_created', fields: { trigger: 'api', message: 'task' } }] });
    const launched = await transition(runs, created, 'launch', { patch: { startedAt: at }, events: [{ type: 'run_started', fields: {} }] });
    expect(created.status).toBe('pending');
    expect(launched).not.toBe(created);
    expect(launched).toMatchObject({ status: 'running', startedAt: at });
    expect(await runs.get(created.id)).toEqual(launched);
    expect((await runs.readEvents(created.id)).map((event) => [event.type, event.seq])).toEqual([
      ['run_created', 1],
      ['run_started', 2],
    ]);
  });

  it('hands out frozen records, nodes and all: a change in place throws instead of racing an await', async () => {
    const created = await transition(runs, newRun(), 'create');
    const read = await runs.get(created.id);
    for (const run of [created, read!]) {
      expect(() => {
        (run as { status: string }).status = 'running';
      }).toThrow(TypeError);
      expect(() => {
        (run.nodes.build as { status: string }).status = 'running';
      }).toThrow(TypeError);
      expect(() => {
        run.nodes.extra = freshNodeState();
      }).toThrow(TypeError);
    }
    // A node change makes a new node state too.
    const node = read!.nodes.build!;
    expect(moveNode(node, 'start')).toMatchObject({ status: 'running' });
    expect(node.status).toBe('pending');
    expect((await runs.list({})).runs[0]).toEqual(created);
  });

  it('a change decided on a stale snapshot is refused (409) and the stored run stays as the first change left it', async () => {
    const created = await transition(runs, newRun(), 'create');
    const launched = await transition(runs, created, 'launch', { events: [{ type: 'run_started', fields: {} }] });
    // `created` still says pending: a cancel decided on it lost to the launch.
    const late = transition(runs, created, 'cancel', { patch: { finishedAt: at }, events: [{ type: 'run_cancelled', fields: {} }] });
    await expect(late).rejects.toBeInstanceOf(RunChangedElsewhere);
    await expect(late).rejects.toMatchObject({ code: 'invalid_run_state' });
    expect(statusOf('invalid_run_state')).toBe(409);
    expect(await runs.get(created.id)).toEqual(launched);
    expect((await runs.readEvents(created.id)).map((event) => event.type)).toEqual(['run_started']);
  });
});
