/** The landing queue repository's contract (src/queue/repository.ts), for every store. */

import { expect, it } from 'vitest';
import type { QueueEntry } from '../../../src/queue/index.js';
import { useContractStore } from './lifecycle.js';
import type { ContractStoreFactory } from './store.js';

const entry = (runId: string, fields: Partial<QueueEntry> = {}): Omit<QueueEntry, 'position'> => ({
  runId,
  workspaceId: 'ws_1',
  target: 'main',
  state: 'queued',
  strategy: 'merge',
  reason: null,
  files: null,
  outputTail: null,
  base: null,
  commit: null,
  attempts: 0,
  rework: { mode: 'person', max: 2 },
  reworks: 0,
  reworkOf: null,
  reworkRunId: null,
  awaitingRework: false,
  enteredAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  landedAt: null,
  ...fields,
});

export function queueRepositoryContract(factory: ContractStoreFactory): void {
  const stores = useContractStore(factory);

  it('enters each run once, at a place after every earlier one, and lists a queue in order, across a reopen', async () => {
    let repository = await stores.current().queue();
    const a = (await repository.enter(entry('run_a')))!;
    const b = (await repository.enter(entry('run_b')))!;
    const other = (await repository.enter(entry('run_x', { workspaceId: 'ws_2' })))!;
    const dev = (await repository.enter(entry('run_d', { target: 'dev' })))!;
    expect(a.position).toBeLessThan(b.position);
    expect(b.position).toBeLessThan(other.position);
    expect(a).toEqual({ ...entry('run_a'), position: a.position });
    expect(await repository.enter(entry('run_a', { target: 'dev' }))).toBeUndefined();

    repository = await (await stores.reopen()).queue();
    expect(await repository.get('run_a')).toEqual(a);
    expect(await repository.get('run_missing')).toBeUndefined();
    expect((await repository.list({ workspaceId: 'ws_1' })).map((e) => e.runId)).toEqual(['run_d', 'run_a', 'run_b']);
    expect((await repository.list({ workspaceId: 'ws_1', target: 'main' })).map((e) => e.runId)).toEqual(['run_a', 'run_b']);
    expect((await repository.list({ workspaceId: 'ws_1', target: 'main', limit: 1 })).map((e) => e.runId)).toEqual(['run_a']);
    expect((await repository.list({ workspaceId: 'ws_2' })).map((e) => e.runId)).toEqual(['run_x']);
    expect(await repository.list({ workspaceId: 'ws_none' })).toEqual([]);
    expect(dev.target).toBe('dev');
  });

  it('replaces an entry only while it is still the one read: one of concurrent changes wins; states filter lists and open queues', async () => {
    const repository = await stores.current().queue();
    const a = (await repository.enter(entry('run_a')))!;
    await repository.enter(entry('run_b'));
    await repository.enter(entry('run_c', { workspaceId: 'ws_2', target: 'dev' }));
    const changes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => repository.replaceIf(a, { ...a, state: 'verifying', commit: `c${i}`, attempts: 1 })),
    );
    expect(changes.filter(Boolean)).toHaveLength(1);
    const verifying = (await repository.get('run_a'))!;
    expect(verifying).toEqual({ ...a, state: 'verifying', commit: `c${changes.indexOf(true)}`, attempts: 1 });
    expect(await repository.replaceIf(a, { ...a, state: 'landed' })).toBe(false);
    expect(await repository.replaceIf(verifying, { ...verifying, state: 'landed', landedAt: '2026-01-01T00:01:00.000Z' })).toBe(true);
    const b = (await repository.get('run_b'))!;
    expect(await repository.replaceIf(b, { ...b, state: 'needs_rework', reason: 'conflict', files: ['math.js'] })).toBe(true);

    expect((await repository.list({ workspaceId: 'ws_1', states: ['landed'] })).map((e) => e.runId)).toEqual(['run_a']);
    expect((await repository.list({ workspaceId: 'ws_1', states: ['queued', 'verifying', 'paused'] })).map((e) => e.runId)).toEqual([]);
    expect((await repository.get('run_b'))!.files).toEqual(['math.js']);
    expect(await repository.open()).toEqual([{ workspaceId: 'ws_2', target: 'dev' }]);

    expect(await repository.remove('run_c')).toBe(true);
    expect(await repository.remove('run_c')).toBe(false);
    expect(await repository.open()).toEqual([]);
  });

  it('an entry waiting for its rework run keeps its queue open and is listed as such; its rework run enters at its place', async () => {
    let repository = await stores.current().queue();
    const a = (await repository.enter(entry('run_a', { rework: { mode: 'agent', max: 2 } })))!;
    const b = (await repository.enter(entry('run_b')))!;
    const awaiting = { ...a, state: 'needs_rework' as const, reason: 'conflict', awaitingRework: true, reworkRunId: 'run_r' };
    expect(await repository.replaceIf(a, awaiting)).toBe(true);
    expect((await repository.list({ workspaceId: 'ws_1', awaitingRework: true })).map((e) => e.runId)).toEqual(['run_a']);
    expect(await repository.open()).toEqual([{ workspaceId: 'ws_1', target: 'main' }]);
    const b2 = { ...b, state: 'landed' as const };
    expect(await repository.replaceIf(b, b2)).toBe(true);
    // Only the entry waiting for its rework run keeps the queue open now.
    expect(await repository.open()).toEqual([{ workspaceId: 'ws_1', target: 'main' }]);

    const reworked = (await repository.enter(entry('run_r', { reworkOf: 'run_a', reworks: 1, rework: { mode: 'agent', max: 2 } }), a.position))!;
    expect(reworked.position).toBe(a.position);
    expect(await repository.replaceIf(awaiting, { ...awaiting, awaitingRework: false })).toBe(true);
    repository = await (await stores.reopen()).queue();
    expect(await repository.list({ workspaceId: 'ws_1', awaitingRework: true })).toEqual([]);
    expect((await repository.list({ workspaceId: 'ws_1', states: ['queued'] })).map((e) => [e.runId, e.position, e.reworkOf])).toEqual([
      ['run_r', a.position, 'run_a'],
    ]);
    // A place taken by a rework run does not move the next entry's: it still comes after every other.
    expect((await repository.enter(entry('run_c')))!.position).toBeGreaterThan(b.position);
  });
}
