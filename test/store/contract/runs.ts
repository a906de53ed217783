/** The run repository's contract (src/runs/storage/run-repository.ts), for every store. */

import { expect, it } from 'vitest';
import type { RunEvent } from '../../../src/runs/model/events.js';
import type { NewRunEvent } from '../../../src/runs/storage/run-repository.js';
import type { RunRecord } from '../../../src/runs/model/types.js';
import { useContractStore } from './lifecycle.js';
import type { ContractStoreFactory } from './store.js';

const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();

/** Ids sort by creation as real ones do (`run_<time><random>`). */
const run = (n: number, fields: Partial<RunRecord> = {}): RunRecord => ({
  id: `run_${String(n).padStart(6, '0')}x`,
  workflow: 'build',
  status: 'completed',
  message: `task ${n}`,
  conversationId: null,
  platformId: `wkr_${n}`,
  workspaceId: null,
  cwd: '/srv/project',
  trigger: 'api',
  createdAt: at(n),
  startedAt: at(n),
  finishedAt: null,
  updatedAt: at(n),
  error: null,
  costUsd: null,
  nodes: {},
  resumePending: false,
  variables: {},
  definition: { name: 'build', nodes: [] },
  ...fields,
});

const event = (r: RunRecord, seq: number, text = `line ${seq}`): NewRunEvent => ({
  type: 'node_output',
  at: at(seq),
  runId: r.id,
  seq,
  conversationId: r.conversationId,
  platformId: r.platformId,
  workflow: r.workflow,
  nodeId: 'n1',
  stream: 'stdout',
  text,
});

const ids = (runs: RunRecord[]) => runs.map((r) => Number(r.id.slice(4, 10)));

export function runRepositoryContract(factory: ContractStoreFactory): void {
  const stores = useContractStore(factory);

  it('saves, replaces and resolves runs by id or unique prefix; ambiguous and unknown ids are errors', async () => {
    const runs = await stores.current().runs();
    for (const n of [11, 12, 21]) await runs.save(run(n));
    await runs.save(run(12, { status: 'failed', error: 'boom' }));
    expect(await runs.get(run(12).id)).toEqual(run(12, { status: 'failed', error: 'boom' }));
    expect(await runs.get('run_nope')).toBeUndefined();
    expect(await runs.resolve(run(21).id)).toEqual(run(21));
    expect(await runs.resolve('run_00002')).toEqual(run(21));
    await expect(runs.resolve('run_00001')).rejects.toMatchObject({ code: 'ambiguous_run_id', details: { matches: [run(11).id, run(12).id] } });
    await expect(runs.resolve('run_9')).rejects.toMatchObject({ code: 'run_not_found' });
    // Too short to be a prefix, and wildcards are characters like any other.
    await expect(runs.resolve('run')).rejects.toMatchObject({ code: 'run_not_found' });
    await expect(runs.resolve('run%')).rejects.toMatchObject({ code: 'run_not_found' });
    await expect(runs.resolve('run__000')).rejects.toMatchObject({ code: 'run_not_found' });
  });

  it('counts a prefix after `run_`, which every id starts with: `run_` and three more characters name no run', async () => {
    const runs = await stores.current().runs();
    await runs.save(run(21));
    for (const short of ['run_', 'run_0', 'run_000']) {
      await expect(runs.resolve(short)).rejects.toMatchObject({
        code: 'run_not_found',
        message: expect.stringMatching(/4 characters after 'run_'/),
      });
    }
    expect(await runs.resolve('run_0000')).toEqual(run(21));
    expect(await runs.get(run(21).id)).toEqual(run(21));
  });

  it("keeps a run's branch and commits, each node's commit and changes, and what landed it (merged, pullRequest)", async () => {
    const runs = await stores.current().runs();
    const sha = (c: string) => c.repeat(40);
    const node = { status: 'completed' as const, startedAt: at(1), finishedAt: at(2), durationMs: 1000, costUsd: null, output: '', error: null, attempts: 1 };
    const saved = run(31, {
      workspaceId: 'ws_a',
      branch: `svc/${run(31).id}`,
      baseCommit: sha('a'),
      headCommit: sha('b'),
      merged: { into: 'main', commit: sha('c'), strategy: 'squash', at: at(3) },
      pullRequest: { url: 'https://github.com/me/widgets/pull/7', base: 'main', at: at(4) },
      nodes: {
        edit: { ...node, baseCommit: sha('a'), commit: sha('b'), changes: { files: 2, insertions: 10, deletions: 3 } },
        look: { ...node, baseCommit: sha('b'), commit: null, changes: { files: 0, insertions: 0, deletions: 0 } },
      },
    });
    await runs.save(saved);
    expect(await runs.get(saved.id)).toEqual(saved);
  });

  it('lists newest first, filtered and paged, with the total and the counts per state (the status filter aside)', async () => {
    const runs = await stores.current().runs();
    await runs.save(run(1, { workflow: 'deploy', status: 'failed' }));
    await runs.save(run(2, { conversationId: 'conv_a', status: 'running' }));
    await runs.save(run(3, { workspaceId: 'ws_a' }));
    await runs.save(run(4, { conversationId: 'conv_a', workspaceId: 'ws_a', status: 'failed' }));
    await runs.save(run(5, { status: 'pending' }));
    expect(await runs.list({})).toEqual({
      runs: [5, 4, 3, 2, 1].map((n) => expect.objectContaining({ id: run(n).id })),
      total: 5,
      counts: { completed: 1, failed: 2, running: 1, pending: 1 },
    });
    const failed = await runs.list({ status: ['failed', 'cancelled'] });
    expect([ids(failed.runs), failed.total, failed.counts]).toEqual([[4, 1], 2, { completed: 1, failed: 2, running: 1, pending: 1 }]);
    expect(ids((await runs.list({ workflow: 'deploy' })).runs)).toEqual([1]);
    const linked = await runs.list({ conversationId: 'conv_a' });
    expect([ids(linked.runs), linked.counts]).toEqual([[4, 2], { failed: 1, running: 1 }]);
    expect(ids((await runs.list({ workspaceId: 'ws_a', status: ['completed'] })).runs)).toEqual([3]);
    // Follow-on runs of a run (docs/decisions.md, "Follow-on runs").
    await runs.save(run(7, { workspaceId: 'ws_a', fromRunId: run(3).id }));
    const followOns = await runs.list({ fromRunId: run(3).id });
    expect([ids(followOns.runs), followOns.total]).toEqual([[7], 1]);
    expect(await runs.list({ fromRunId: run(7).id })).toEqual({ runs: [], total: 0, counts: {} });
    await runs.delete(run(7).id);
    // The runs of one version of their workflow (docs/decisions.md, "Versions").
    await runs.save(run(8, { definitionHash: 'a'.repeat(64), definitionHashes: ['a'.repeat(64)] }));
    await runs.save(run(9, { definitionHash: 'b'.repeat(64), definitionHashes: ['a'.repeat(64), 'b'.repeat(64)] }));
    expect(ids((await runs.list({ definitionHash: 'a'.repeat(64) })).runs)).toEqual([8]);
    expect(ids((await runs.list({ definitionHash: 'b'.repeat(64), workflow: 'deploy' })).runs)).toEqual([]);
    await runs.delete(run(8).id);
    await runs.delete(run(9).id);
    expect(ids((await runs.list({ sinceMs: Date.parse(at(2)), untilMs: Date.parse(at(4)) })).runs)).toEqual([4, 3, 2]);
    const page = await runs.list({ limit: 2, offset: 1 });
    expect([ids(page.runs), page.total]).toEqual([[4, 3], 5]);
    expect(await runs.list({ offset: 9 })).toMatchObject({ runs: [], total: 5 });
    expect(await runs.list({ workflow: 'none' })).toEqual({ runs: [], total: 0, counts: {} });
    for (let n = 6; n <= 60; n++) await runs.save(run(n));
    expect((await runs.list({})).runs).toHaveLength(50);
  });

  it('finds the run of a worker conversation, the newest resumable run, runs by state oldest first, and the workflows', async () => {
    const runs = await stores.current().runs();
    await runs.save(run(1, { status: 'failed', resumePending: true, conversationId: 'conv_a' }));
    await runs.save(run(2, { status: 'failed', resumePending: true, conversationId: 'conv_a' }));
    await runs.save(run(3, { status: 'failed', resumePending: false, conversationId: 'conv_a' }));
    await runs.save(run(4, { status: 'running', workflow: 'deploy' }));
    await runs.save(run(5, { status: 'pending', workflow: 'a-first', createdAt: at(0) }));
    expect((await runs.byWorker('wkr_3'))?.id).toBe(run(3).id);
    expect(await runs.byWorker('wkr_9')).toBeUndefined();
    expect((await runs.resumable('build', 'conv_a'))?.id).toBe(run(2).id);
    expect(await runs.resumable('deploy', 'conv_a')).toBeUndefined();
    expect(await runs.resumable('build', 'conv_b')).toBeUndefined();
    expect(ids(await runs.withStatus(['running', 'pending']))).toEqual([5, 4]);
    expect(await runs.withStatus(['paused'])).toEqual([]);
    expect(await runs.workflows()).toEqual(['a-first', 'build', 'deploy']);
  });

  it('due wake-ups: runs in the states asked whose wakeAt has come, earliest first; the next wake-up; none for other states or cleared ones', async () => {
    const runs = await stores.current().runs();
    await runs.save(run(1, { status: 'waiting', wakeAt: at(30) }));
    await runs.save(run(2, { status: 'waiting', wakeAt: at(10) }));
    await runs.save(run(3, { status: 'waiting', wakeAt: at(90) }));
    await runs.save(run(4, { status: 'waiting', wakeAt: null }));
    await runs.save(run(5, { status: 'completed', wakeAt: at(5) }));
    expect(ids(await runs.dueWakeUps(['waiting'], at(30)))).toEqual([2, 1]);
    expect(ids(await runs.dueWakeUps(['waiting', 'completed'], at(30)))).toEqual([5, 2, 1]);
    expect(await runs.dueWakeUps(['waiting'], at(9))).toEqual([]);
    expect(await runs.nextWakeUp(['waiting'])).toBe(at(10));
    expect(await runs.nextWakeUp(['failed'])).toBeUndefined();
    // Woken: running again, its wake-up cleared, it is no longer due.
    expect(await runs.save(run(2, { status: 'running', wakeAt: null }), undefined, 'waiting')).toBe(true);
    expect(ids(await runs.dueWakeUps(['waiting'], at(100)))).toEqual([1, 3]);
    expect(await runs.nextWakeUp(['waiting'])).toBe(at(30));
  });

  it('events: positions that only grow, one run in seq order, the last seq, and a delete that takes them with the run', async () => {
    const runs = await stores.current().runs();
    const a = run(1);
    const b = run(2);
    await runs.save(a);
    await runs.save(b);
    const stored: RunEvent[] = [];
    for (const [r, seq] of [
      [a, 1],
      [b, 1],
      [a, 2],
      [a, 3],
      [b, 2],
    ] as const)
      stored.push(await runs.appendEvent(event(r, seq)));
    for (let i = 1; i < stored.length; i++) expect(stored[i]!.pos).toBeGreaterThan(stored[i - 1]!.pos);
    expect(stored[0]).toEqual({ ...event(a, 1), pos: stored[0]!.pos });
    expect(await runs.events(a.id)).toEqual([stored[0], stored[2], stored[3]]);
    expect(await runs.lastSeq(a.id)).toBe(3);
    expect(await runs.lastSeq('run_none')).toBe(0);
    expect(await runs.events('run_none')).toEqual([]);

    expect(await runs.delete(a.id)).toBe(true);
    expect(await runs.delete(a.id)).toBe(false);
    expect(await runs.get(a.id)).toBeUndefined();
    expect(await runs.events(a.id)).toEqual([]);
    expect(await runs.events(b.id)).toEqual([stored[1], stored[4]]);
  });

  it('a delete and a change of state expected of a stored state: refused once the run left it, and a deleted run is not written again', async () => {
    const runs = await stores.current().runs();
    const failed = run(1, { status: 'failed' });
    await runs.save(failed, undefined, 'absent');
    expect(await runs.delete(failed.id, 'pending')).toBe(false);
    expect((await runs.get(failed.id))?.status).toBe('failed');
    expect(await runs.delete(failed.id, 'failed')).toBe(true);
    expect(await runs.save({ ...failed, status: 'pending' }, undefined, 'failed')).toBe(false);
    expect(await runs.get(failed.id)).toBeUndefined();
  });

  it('auto-resume wake-ups: failed runs found by their wakeAt, claimed once by compare-and-set (clearing both), across a reopen', async () => {
    let runs = await stores.current().runs();
    // An appointment is `autoResumeAt` and `wakeAt` together (finish.ts).
    const late = run(1, { status: 'failed', autoResumeAt: at(30), wakeAt: at(30) });
    const early = run(2, { status: 'failed', autoResumeAt: at(10), wakeAt: at(10) });
    const kept = run(3, { status: 'failed', autoResumeAt: null, wakeAt: null });
    // Continued meanwhile: a run that is not failed has no appointment to keep, whatever its record says.
    const running = run(4, { status: 'running', autoResumeAt: at(5), wakeAt: at(5) });
    for (const r of [late, early, kept, running]) await runs.save(r);
    expect(await runs.nextWakeUp(['failed'])).toBe(at(10));
    expect(ids(await runs.dueWakeUps(['failed'], at(9)))).toEqual([]);
    expect(ids(await runs.dueWakeUps(['failed'], at(10)))).toEqual([2]);
    expect(await runs.dueWakeUps(['failed'], at(59))).toEqual([
      expect.objectContaining({ id: early.id, autoResumeAt: at(10) }),
      expect.objectContaining({ id: late.id, autoResumeAt: at(30) }),
    ]);

    // Only while it still holds that time, once: two servers' timers, or a timer and a cancel, race for it.
    expect(await runs.claimAutoResume(early.id, at(11))).toBe(false);
    expect(await runs.claimAutoResume(running.id, at(5))).toBe(false);
    const claims = await Promise.all([runs.claimAutoResume(early.id, at(10)), runs.claimAutoResume(early.id, at(10))]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    const claimed = await runs.get(early.id);
    expect(claimed).toMatchObject({ status: 'failed', autoResumeAt: null, wakeAt: null });
    expect(claimed!.updatedAt >= early.updatedAt).toBe(true);
    expect(await runs.claimAutoResume('run_nope', at(10))).toBe(false);

    runs = await (await stores.reopen()).runs();
    expect(await runs.nextWakeUp(['failed'])).toBe(at(30));
    expect(ids(await runs.dueWakeUps(['failed'], at(59)))).toEqual([1]);
    await runs.delete(late.id);
    expect(await runs.nextWakeUp(['failed'])).toBeUndefined();
  });

  it('a save expected of a state is a compare-and-set: written only over that state, and a new run only once', async () => {
    const runs = await stores.current().runs();
    const pending = run(41, { status: 'pending', startedAt: null });
    expect(await runs.save(pending, undefined, 'absent')).toBe(true);
    expect(await runs.save({ ...pending, message: 'again' }, undefined, 'absent')).toBe(false);
    expect(await runs.get(pending.id)).toEqual(pending);

    // Two changes decided on the same `pending` snapshot: the first wins, the stale one is refused and writes nothing.
    const running = { ...pending, status: 'running' as const, startedAt: at(42) };
    const cancelled = { ...pending, status: 'cancelled' as const, finishedAt: at(42) };
    expect(await runs.save(running, undefined, 'pending')).toBe(true);
    expect(await runs.save(cancelled, undefined, 'pending')).toBe(false);
    expect(await runs.get(pending.id)).toEqual(running);

    // Progress over the state it holds is written; a plain save (no expectation) always is.
    const progressed = { ...running, costUsd: 0.5 };
    expect(await runs.save(progressed, { sync: false }, 'running')).toBe(true);
    expect(await runs.get(pending.id)).toEqual(progressed);
    expect(await runs.save({ ...progressed, status: 'failed' as const }, undefined, 'completed')).toBe(false);
    expect(await runs.save({ ...progressed, status: 'failed' as const })).toBe(true);
    expect((await runs.get(pending.id))?.status).toBe('failed');
    expect((await runs.list({})).runs.find((r) => r.id === pending.id)?.status).toBe('failed');
  });

  it('replay: events after a position, of one run or of the runs linked to conversations, in position order, across a reopen', async () => {
    let runs = await stores.current().runs();
    const a = run(1, { conversationId: 'conv_a' });
    const b = run(2, { platformId: 'wkr_b' });
    const c = run(3);
    for (const r of [a, b, c]) await runs.save(r);
    const stored: RunEvent[] = [];
    for (const [r, seq] of [
      [a, 1],
      [b, 1],
      [c, 1],
      [a, 2],
      [b, 2],
      [c, 2],
    ] as const)
      stored.push(await runs.appendEvent(event(r, seq)));
    const positions = (events: RunEvent[]) => events.map((e) => stored.findIndex((s) => s.pos === e.pos));

    expect(positions(await runs.eventsAfter(0, {}))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(positions(await runs.eventsAfter(stored[2]!.pos, {}))).toEqual([3, 4, 5]);
    expect(positions(await runs.eventsAfter(0, { runId: b.id }))).toEqual([1, 4]);
    expect(positions(await runs.eventsAfter(0, { linkedTo: ['conv_a', 'wkr_b'] }))).toEqual([0, 1, 3, 4]);
    expect(positions(await runs.eventsAfter(stored[1]!.pos, { linkedTo: ['conv_a'], runId: a.id }))).toEqual([3]);
    expect(await runs.eventsAfter(0, { linkedTo: [] })).toEqual([]);

    runs = await (await stores.reopen()).runs();
    expect(positions(await runs.eventsAfter(stored[3]!.pos, {}))).toEqual([4, 5]);
    const later = await runs.appendEvent(event(a, 3));
    expect(later.pos).toBeGreaterThan(stored[5]!.pos);
    expect(await runs.eventsAfter(stored[5]!.pos, { linkedTo: ['conv_a'] })).toEqual([later]);
  });

  it('node states keep what was cut of their output and log (outputTruncated, logTruncated) across a reopen', async () => {
    let runs = await stores.current().runs();
    const node = { startedAt: at(1), finishedAt: at(2), durationMs: 1000, costUsd: null, error: null, attempts: 1 };
    const stored = run(31, {
      nodes: {
        wide: { ...node, status: 'completed', output: 'w'.repeat(10), outputTruncated: true, logTruncated: true },
        loud: { ...node, status: 'failed', output: null, error: "output_too_large: node 'loud' printed more than 16 MiB on stdout", logTruncated: true },
        quiet: { ...node, status: 'completed', output: 'ok' },
      },
    });
    await runs.save(stored);
    runs = await (await stores.reopen()).runs();
    const back = await runs.get(stored.id);
    expect(back).toEqual(stored);
    expect(back!.nodes.quiet).not.toHaveProperty('logTruncated');
  });
}
