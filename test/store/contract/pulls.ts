/** The followed pull requests' repository contract (src/pulls/repository.ts), for every store. */

import { expect, it } from 'vitest';
import type { PullFollow, PullRepository } from '../../../src/pulls/index.js';
import type { Reaction } from '../../../src/pulls/records.js';
import { useContractStore } from './lifecycle.js';
import type { ContractStoreFactory } from './store.js';

/** A followed pull request with plain values; `fields` override them. */
/** A reaction to a failed check `test` on commit `abc`, its follow-on run `run_f` of `run_a`, in `state`. */
export const reactionRecord = (state: Reaction['state'], fields: Partial<Reaction> = {}): Reaction => ({
  key: 'ci:abc:test',
  kind: 'ci',
  commit: 'abc',
  checks: ['test'],
  comments: [],
  workflow: 'fix-ci',
  followOnRunId: 'run_f',
  fromRunId: 'run_a',
  message: 'CI failed',
  state,
  replied: [],
  pushedCommit: null,
  error: null,
  startedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: null,
  ...fields,
});

export const follow = (runId: string, fields: Partial<PullFollow> = {}): PullFollow => ({
  runId,
  workspaceId: 'ws_1',
  number: 7,
  url: 'https://github.com/me/widgets/pull/7',
  repo: 'me/widgets',
  branch: `svc/${runId}`,
  headRunId: runId,
  state: 'open',
  headCommit: null,
  checks: [],
  reactions: [],
  handledComments: [],
  ownComments: [],
  reported: [],
  onCiFailure: 'fix-ci',
  onReview: 'address-review',
  maxFixCycles: 3,
  needsHuman: null,
  cleanup: null,
  active: true,
  nextLookAt: '2026-01-01T00:00:00.000Z',
  lastError: null,
  followedAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...fields,
});

export function pullRepositoryContract(factory: ContractStoreFactory): void {
  const stores = useContractStore(factory);

  it('adds a run once, and reads it back whole across a reopen', async () => {
    let repository = await stores.current().pulls();
    const a = follow('run_a', {
      checks: [{ name: 'test', state: 'failure', url: null, infrastructure: 'quota exceeded' }],
      reactions: [reactionRecord('starting')],
    });
    expect(await repository.add(a)).toEqual(a);
    expect(await repository.add(follow('run_a', { number: 8 }))).toBeUndefined();
    repository = await (await stores.reopen()).pulls();
    expect(await repository.get('run_a')).toEqual(a);
    expect(await repository.get('run_missing')).toBeUndefined();
  });

  it('answers the active follows due by a time, soonest first and bounded, and those a delivery names', async () => {
    const repository = await stores.current().pulls();
    await repository.add(follow('run_late', { nextLookAt: '2026-01-01T00:05:00.000Z' }));
    await repository.add(follow('run_soon', { nextLookAt: '2026-01-01T00:01:00.000Z', number: 8 }));
    await repository.add(follow('run_later', { nextLookAt: '2026-01-01T00:09:00.000Z', number: 9, repo: 'ghe.example.com/me/widgets' }));
    await repository.add(follow('run_done', { nextLookAt: '2026-01-01T00:00:00.000Z', active: false }));
    const due = (now: string, limit = 10) => repository.due(now, limit).then((list) => list.map((f) => f.runId));
    expect(await due('2026-01-01T00:06:00.000Z')).toEqual(['run_soon', 'run_late']);
    expect(await due('2026-01-01T00:06:00.000Z', 1)).toEqual(['run_soon']);
    expect(await due('2026-01-01T00:00:30.000Z')).toEqual([]);
    const found = (query: Parameters<typeof repository.find>[0]) => repository.find(query).then((list) => list.map((f) => f.runId).sort());
    expect(await found({ repo: 'me/widgets', number: 7 })).toEqual(['run_late']);
    expect(await found({ repo: 'ghe.example.com/me/widgets', number: 9 })).toEqual(['run_later']);
    expect(await found({ repo: 'me/widgets', number: 9 })).toEqual([]);
    expect(await found({ branch: 'svc/run_soon' })).toEqual(['run_soon']);
    // An inactive follow (merged, cleaned up) is named by no delivery.
    expect(await found({ branch: 'svc/run_done' })).toEqual([]);
  });

  it("a server's due leaves out what another live server holds, so its batch is filled with follows it can take", async () => {
    const store = stores.current();
    const mine = await store.pulls({ serverId: 'srv_me' });
    const runs = ['run_theirs1', 'run_theirs2', 'run_dead', 'run_mine', 'run_free'];
    for (const [i, runId] of runs.entries()) await mine.add(follow(runId, { nextLookAt: `2026-01-01T00:0${i}:00.000Z`, number: 10 + i }));
    if (store.holdPull) {
      await store.holdPull('run_theirs1', 'srv_other', true);
      await store.holdPull('run_theirs2', 'srv_other', true);
      // A holder whose lease ran out holds nothing: its follow is taken over.
      await store.holdPull('run_dead', 'srv_gone', false);
      await store.holdPull('run_mine', 'srv_me', true);
    }
    const due = async (repository: PullRepository, limit: number) => (await repository.due('2026-01-01T01:00:00.000Z', limit)).map((f) => f.runId);
    // The other server's two, soonest due, do not take two of the three places.
    expect(await due(mine, 3)).toEqual(store.holdPull ? ['run_dead', 'run_mine', 'run_free'] : runs.slice(0, 3));
    // What follows nothing (a CLI process: no server id) is told every follow due.
    expect(await due(await store.pulls(), 10)).toEqual(runs);
  });

  it('replaces a follow only while it is still the one read: one of concurrent changes wins; removes it', async () => {
    const repository = await stores.current().pulls();
    const a = (await repository.add(follow('run_a')))!;
    const changes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => repository.replaceIf(a, { ...a, handledComments: [`c${i}`], nextLookAt: '2026-01-01T00:02:00.000Z' })),
    );
    expect(changes.filter(Boolean)).toHaveLength(1);
    const changed = (await repository.get('run_a'))!;
    expect(changed.handledComments).toEqual([`c${changes.indexOf(true)}`]);
    expect(await repository.replaceIf(a, { ...a, needsHuman: 'late' })).toBe(false);
    expect(await repository.replaceIf(changed, { ...changed, active: false, state: 'merged' })).toBe(true);
    expect(await repository.due('2026-02-01T00:00:00.000Z', 10)).toEqual([]);
    expect(await repository.remove('run_a')).toBe(true);
    expect(await repository.remove('run_a')).toBe(false);
    expect(await repository.get('run_a')).toBeUndefined();
  });

  it("keeps gh's NUL, control characters and lone surrogates out: every store takes the follow, cleaned, and compares it so", async () => {
    const repository = await stores.current().pulls();
    const dirty = 'gh: boom\u0000 \u001b[31mred\u001b[0m half \ud83d tab\tline\n';
    const clean = 'gh: boom red half \ufffd tab\tline\n';
    const added = (await repository.add(
      follow('run_dirty', { lastError: dirty, checks: [{ name: 'te\u0000st', state: 'failure', url: null, infrastructure: dirty }] }),
    ))!;
    expect(added.lastError).toBe(clean);
    expect((await repository.get('run_dirty'))!.checks[0]).toMatchObject({ name: 'test', infrastructure: clean });
    // The record as the caller read it, dirty or not, is still the one stored.
    expect(await repository.replaceIf(follow('run_dirty', { lastError: dirty, checks: added.checks }), { ...added, lastError: `again ${dirty}` })).toBe(true);
    const again = (await repository.get('run_dirty'))!;
    expect(again.lastError).toBe(`again ${clean}`);
    expect(await repository.replaceIf(again, { ...again, lastError: null })).toBe(true);
    expect((await repository.get('run_dirty'))!.lastError).toBeNull();
  });
}
