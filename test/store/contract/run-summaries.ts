/** The benchmarks' run summaries (src/runs/storage/run-summaries.ts), for every store. */

import { expect, it } from 'vitest';
import type { RunRecord } from '../../../src/runs/model/types.js';
import { useContractStore } from './lifecycle.js';
import type { ContractStoreFactory } from './store.js';

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0) + seconds * 1000).toISOString();

/** A run that started at `n` s and ended 5 s later, with one executed node and one skipped. */
const ended = (n: number, fields: Partial<RunRecord> = {}): RunRecord =>
  ({
    id: `run_${String(n).padStart(6, '0')}s`,
    workflow: 'build',
    status: 'completed',
    message: '',
    conversationId: null,
    platformId: `wkr_${n}`,
    workspaceId: null,
    cwd: '/srv/project',
    trigger: 'api',
    createdAt: at(n),
    startedAt: at(n),
    finishedAt: at(n + 5),
    updatedAt: at(n + 5),
    error: null,
    costUsd: 0.5,
    nodes: {
      make: { status: 'completed', startedAt: at(n), finishedAt: at(n + 4), durationMs: 4000, costUsd: 0.5, output: '', error: null, attempts: 1 },
      skip: { status: 'skipped', startedAt: null, finishedAt: at(n + 4), durationMs: null, costUsd: null, output: null, error: null, attempts: 0 },
    },
    resumePending: false,
    variables: {},
    definition: { name: 'build', nodes: [] },
    ...fields,
  }) as RunRecord;

/** The run with its `make` node's measured peak memory. */
const withPeak = (record: RunRecord, peakRssBytes: number): RunRecord => ({
  ...record,
  nodes: { ...record.nodes, make: { ...record.nodes.make!, peakRssBytes } },
});

export function runSummaryContract(factory: ContractStoreFactory): void {
  const stores = useContractStore(factory);

  it('keeps ended runs newest first per workflow, at most `limit`, since a time; executed nodes only; outlives a restart', async () => {
    const runs = await stores.current().runs();
    const summaries = await stores.current().runSummaries();
    const records = [ended(10), ended(20, { status: 'failed', error: 'make: exit 1' }), ended(30), ended(40, { workflow: 'deploy' })];
    for (const record of records) {
      await runs.save(record);
      await summaries.update(record);
    }
    // Not ended (or not measured): no summary, and one it had is dropped.
    const pending = ended(50, { status: 'running', finishedAt: null });
    await runs.save(pending);
    await summaries.update(pending);
    const recent = await summaries.recent('build', { limit: 10 });
    expect(recent.map((s) => s.runId)).toEqual([records[2]!.id, records[1]!.id, records[0]!.id]);
    expect(recent[1]).toMatchObject({ status: 'failed', durationMs: 5000, costUsd: 0.5, nodes: [{ id: 'make', durationMs: 4000, costUsd: 0.5 }] });
    expect((await summaries.recent('build', { limit: 2 })).map((s) => s.runId)).toEqual([records[2]!.id, records[1]!.id]);
    expect((await summaries.recent('build', { limit: 10, sinceMs: Date.parse(at(26)) })).map((s) => s.runId)).toEqual([records[2]!.id]);

    const cancelled = { ...records[2]!, status: 'cancelled' as const };
    await runs.save(cancelled);
    await summaries.update(cancelled);
    await summaries.remove(records[0]!.id);
    expect((await summaries.recent('build', { limit: 10 })).map((s) => s.runId)).toEqual([records[1]!.id]);

    const reopened = await (await stores.reopen()).runSummaries();
    expect((await reopened.recent('build', { limit: 10 })).map((s) => s.runId)).toContain(records[1]!.id);
    expect((await reopened.recent('deploy', { limit: 10 })).map((s) => s.runId)).toEqual([records[3]!.id]);
  });

  it('groups the runs a benchmark measures by version, newest version first, within the same limit and since; leaves out test runs and runs without a version', async () => {
    const runs = await stores.current().runs();
    const summaries = await stores.current().runSummaries();
    const [v1, v2] = ['1'.repeat(64), '2'.repeat(64)];
    const records = [
      withPeak(ended(10, { definitionHash: v1, costUsd: 0.25 }), 100),
      ended(20, { definitionHash: v1, costUsd: null, finishedAt: at(29) }),
      withPeak(ended(30, { definitionHash: v2, costUsd: 1 }), 300),
      withPeak(ended(40, { definitionHash: v2, costUsd: 2, finishedAt: at(47) }), 200),
      ended(50, { definitionHash: v2, costUsd: 0.5, status: 'failed' }),
      // No version (recorded before versions): measured by the benchmark, in no group.
      ended(60),
      // A workflow test: not measured at all.
      ended(70, { definitionHash: v2, trigger: 'test' }),
    ];
    for (const record of records) {
      await runs.save(record);
      await summaries.update(record);
    }
    expect((await summaries.recent('build', { limit: 10 })).map((s) => s.runId)).not.toContain(records[6]!.id);
    expect(await summaries.versions('build', { limit: 10 })).toEqual([
      { definitionHash: v2, firstRunAt: at(30), durationsMs: [5000, 5000, 7000], usd: 3.5, nodePeaksBytes: [{ id: 'make', peaksBytes: [200, 300] }] },
      { definitionHash: v1, firstRunAt: at(10), durationsMs: [5000, 9000], usd: 0.25, nodePeaksBytes: [{ id: 'make', peaksBytes: [100] }] },
    ]);
    // The newest 3 measured runs (the one without a version among them), then grouped.
    expect(await summaries.versions('build', { limit: 3 })).toEqual([
      { definitionHash: v2, firstRunAt: at(40), durationsMs: [5000, 7000], usd: 2.5, nodePeaksBytes: [{ id: 'make', peaksBytes: [200] }] },
    ]);
    expect((await summaries.versions('build', { limit: 10, sinceMs: Date.parse(at(29)) })).map((v) => v.definitionHash)).toEqual([v2, v1]);
    expect((await summaries.versions('build', { limit: 10, sinceMs: Date.parse(at(30)) })).map((v) => v.definitionHash)).toEqual([v2]);
    expect(await summaries.versions('deploy', { limit: 10 })).toEqual([]);
  });

  it("gives one node's measured peaks in the newest runs of its workflow on its workspace, newest first; outlives a restart", async () => {
    const runs = await stores.current().runs();
    const summaries = await stores.current().runSummaries();
    const records = [
      withPeak(ended(10), 100),
      withPeak(ended(20, { status: 'failed', error: 'make: out of memory' }), 200),
      // Executed but not measured (no /proc): a run in the window, with no peak.
      ended(30),
      withPeak(ended(40), 400),
      // The same workflow on a workspace, and another workflow: other histories.
      withPeak(ended(50, { workspaceId: 'ws_1' }), 5000),
      withPeak(ended(60, { workspaceId: 'ws_1' }), 6000),
      withPeak(ended(70, { workflow: 'deploy' }), 7000),
      // Still running, and a workflow test: not history.
      withPeak(ended(80, { status: 'running', finishedAt: null }), 8000),
      withPeak(ended(90, { trigger: 'test' }), 9000),
    ];
    for (const record of records) {
      await runs.save(record);
      await summaries.update(record);
    }
    const history = (index: typeof summaries, fields: Partial<Parameters<typeof summaries.nodePeakHistory>[0]> = {}) =>
      index.nodePeakHistory({ workflow: 'build', workspaceId: null, nodeId: 'make', runs: 50, ...fields });
    expect(await history(summaries)).toEqual([400, 200, 100]);
    // The newest 2 runs: one of them measured nothing.
    expect(await history(summaries, { runs: 2 })).toEqual([400]);
    expect(await history(summaries, { workspaceId: 'ws_1' })).toEqual([6000, 5000]);
    expect(await history(summaries, { workspaceId: 'ws_1', runs: 1 })).toEqual([6000]);
    expect(await history(summaries, { workflow: 'deploy' })).toEqual([7000]);
    expect(await history(summaries, { nodeId: 'skip' })).toEqual([]);
    expect(await history(summaries, { workflow: 'nothing' })).toEqual([]);

    // A run deleted leaves its workflow's history.
    await summaries.remove(records[3]!.id);
    await runs.delete(records[3]!.id);
    expect(await history(summaries)).toEqual([200, 100]);
    const reopened = await (await stores.reopen()).runSummaries();
    expect(await history(reopened)).toEqual([200, 100]);
    expect(await history(reopened, { workspaceId: 'ws_1' })).toEqual([6000, 5000]);
  });

  it('keeps which nodes waited (an approval gate, a wait node) and how long the run waited, gates open at once counted once', async () => {
    const runs = await stores.current().runs();
    const summaries = await stores.current().runSummaries();
    const node = (from: number, ms: number) => ({
      status: 'completed' as const,
      startedAt: at(from),
      finishedAt: at(from + ms / 1000),
      durationMs: ms,
      costUsd: null,
      output: '',
      error: null,
      attempts: 0,
    });
    const record = ended(100, {
      workflow: 'gated',
      finishedAt: at(200),
      nodes: {
        make: node(100, 4000),
        review: node(104, 60_000),
        legal: node(134, 40_000),
        pause: node(180, 10_000),
      },
      definition: {
        name: 'gated',
        nodes: [
          { id: 'make', bash: 'make' },
          { id: 'review', approval: { message: 'ok?' } },
          { id: 'legal', approval: { message: 'ok?' } },
          { id: 'pause', wait: { for: '10s' } },
        ],
      },
    });
    await runs.save(record);
    await summaries.update(record);
    const check = async (index: typeof summaries) => {
      const [summary] = await index.recent('gated', { limit: 1 });
      expect(summary!.nodes.map((n) => [n.id, n.waits])).toEqual([
        ['make', undefined],
        ['review', 'approval'],
        ['legal', 'approval'],
        ['pause', 'wait'],
      ]);
      // review 104–164 and legal 134–174 join to 70 s; the wait adds 10 s.
      expect(summary!.waitedMs).toBe(80_000);
    };
    await check(summaries);
    await check(await (await stores.reopen()).runSummaries());
  });
}
