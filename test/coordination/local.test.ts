import { describe, expect, it } from 'vitest';
import { localCoordination } from '../../src/coordination/local.js';
import { rolePolicy } from '../../src/app/process-role.js';

/**
 * The coordination of one process alone (docs/decisions.md, "Coordination seam"): the engine, the
 * orchestrator and the workspaces make the same calls as on a shared database, and get the
 * answers of a process that owns everything. Their behaviour end to end is covered by the engine,
 * conversation and workspace tests; these pin the answers themselves.
 */
describe('localCoordination', () => {
  it('offers runs first in, first out, an approved one at the front; a claim takes them in that order', async () => {
    const { runs } = localCoordination();
    await runs.offer('run_a');
    await runs.offer('run_b');
    await runs.offer('run_c', { front: true });
    expect(runs.waiting).toBe(3);
    expect(await runs.claim(2)).toEqual(['run_c', 'run_a']);
    expect(await runs.claim(0)).toEqual([]);
    expect(await runs.claim(5)).toEqual(['run_b']);
    expect(runs.waiting).toBe(0);
  });

  it('claims a named run always, taking it off the offers; a withdrawn run is no longer offered; an unclaimed one waits again', async () => {
    const { runs } = localCoordination();
    await runs.offer('run_a');
    await runs.offer('run_b');
    expect(await runs.claimRun('run_a')).toBe(true);
    expect(await runs.claimRun('run_never_offered')).toBe(true);
    runs.withdraw('run_b');
    expect(runs.waiting).toBe(0);
    await runs.unclaim('run_a');
    await runs.unclaim('run_a');
    expect(await runs.claim(5)).toEqual(['run_a']);
  });

  it('owns every run: none executes elsewhere, none is bound to another home, there are no location or share to report', async () => {
    const coordination = localCoordination();
    expect(coordination.serverId).toBeUndefined();
    expect(coordination.placesRunsAtLaunch).toBe(false);
    expect(coordination.runs.executesElsewhere('run_a')).toBe(false);
    expect(await coordination.runs.boundElsewhere('run_a')).toBe(false);
    expect(coordination.runs.location('run_a')).toBeUndefined();
    expect(coordination.runs.share()).toBeUndefined();
  });

  it('takes what the previous process left as its own at start, runs and conversations', async () => {
    const { runs, answering } = localCoordination();
    const orphaned: string[][] = [];
    await runs.start({ pending: () => {}, stop: () => {}, leftBehind: async () => ['run_a', 'run_b'], orphaned: async (ids) => void orphaned.push(ids) });
    expect(orphaned).toEqual([['run_a', 'run_b']]);
    const taken: unknown[] = [];
    const left = [{ id: 'conv_a', pending: ['msg_1'] }];
    await answering.start({ taken: (conversations) => taken.push(conversations), waiting: () => {}, leftBehind: async () => left });
    expect(taken).toEqual([left]);
  });

  it('answers every conversation here, and every worktree is in this home', async () => {
    const { answering, homes } = localCoordination();
    expect(await answering.claim('conv_a')).toBe(true);
    expect(await answering.holds('conv_a')).toBe(true);
    expect(await answering.release('conv_a')).toBe(true);
    expect(homes.homeId).toBeUndefined();
    expect(homes.isHere(undefined)).toBe(true);
    expect(homes.isHere('home_elsewhere')).toBe(true);
  });
});

/** What the process's role decides, once (app/process-role.ts); the same answers context.ts computed inline before. */
describe('rolePolicy', () => {
  it.each([
    ['server', false, { storeLock: 'server', writes: true, executes: true, requeuesPending: true, takesPartInLeases: true, keepsClocks: true }],
    ['server', true, { storeLock: 'server', writes: true, executes: true, requeuesPending: true, takesPartInLeases: true, keepsClocks: true }],
    ['cli', false, { storeLock: 'cli', writes: true, executes: true, requeuesPending: false, takesPartInLeases: false, keepsClocks: false }],
    // On a shared database only servers execute: the runs a CLI process starts wait for one.
    ['cli', true, { storeLock: 'cli', writes: true, executes: false, requeuesPending: false, takesPartInLeases: false, keepsClocks: false }],
    ['reader', false, { storeLock: false, writes: false, executes: false, requeuesPending: false, takesPartInLeases: false, keepsClocks: false }],
    ['reader', true, { storeLock: false, writes: false, executes: false, requeuesPending: false, takesPartInLeases: false, keepsClocks: false }],
  ] as const)('%s (shared database: %s)', (role, sharedDatabase, policy) => {
    expect(rolePolicy(role, { sharedDatabase })).toEqual(policy);
  });
});
