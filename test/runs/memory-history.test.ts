// A node's memory estimate from its history (docs/contract.md, "Memory admission"): without a
// `memory:` request, a node is admitted at the p95 of its measured peaks in the earlier runs of its
// workflow, so a node that took 300 MB last time waits for room for 300 MB, first come, first served.
// And issue 33's "Done when": four parallel runs whose test nodes each want 40% of the budget never
// run more than two at once, all finish, and each node's peak is shown.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMORY_HISTORY_MIN_PEAKS } from '../../src/runs/executor/memory-estimate.js';
import { formatSize } from '../../src/shared/size.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import type { TestServer } from '../helpers/server.js';
import { cleanupAll, type Json, projectWithWorkflows, readLog, startRun, startServer, tempDir, waitFor, waitForRun } from '../helpers/runs.js';

const MiB = 1024 * 1024;
let dir: string;
let project: string;

// A real process holding `mib` MiB, every byte written so resident, for at least `seconds` (the
// sampler reads every 500 ms), then until `file` exists.
const holdUntil = (mib: number, seconds: number, file: string) =>
  `python3 -c "import os, time; b = b'x' * (${mib} * 1024 * 1024); time.sleep(${seconds}); [time.sleep(0.05) for _ in iter(lambda: os.path.exists('${file}'), True)]"`;

// A test node: notes when its process starts and ends (wall clock, one line each, appended), holding 50 MiB for 2 s between.
const timedTest = (file: string) =>
  `python3 -c "import os, time; note = lambda what: open('${file}', 'a').write(os.environ['RUN_ID'] + ' ' + what + ' ' + repr(time.time()) + chr(10)); note('start'); b = b'x' * (50 * 1024 * 1024); time.sleep(2); note('end')"`;

beforeAll(async () => {
  dir = await tempDir('svc-memory-history-');
  project = await projectWithWorkflows([
    // No `memory:`: its estimate is its history's, once it has one.
    { name: 'hungry', nodes: [{ id: 'eat', bash: holdUntil(300, 1.2, join(dir, 'release-hungry')) }] },
    { name: 'holder', nodes: [{ id: 'hold', bash: holdUntil(20, 0, join(dir, 'release-holder')), memory: '200MB' }] },
    { name: 'small', nodes: [{ id: 'small', bash: 'echo small', memory: '50MB' }] },
    { name: 'suite', nodes: [{ id: 'test', bash: timedTest(join(dir, 'suite-times')), memory: '400MB' }] },
  ]);
});
afterAll(cleanupAll);

const running = (nodeId: string) => (run: Json) => run.nodes[nodeId].status === 'running' && run.nodes[nodeId].waitingFor === undefined;
const waitingForMemory = (nodeId: string) => (run: Json) => run.nodes[nodeId].status === 'waiting' && run.nodes[nodeId].waitingFor === 'memory';
const waitEvents = (run: Json, nodeId: string) => (run.events as Json[]).filter((e) => e.type === 'node_waiting' && e.nodeId === nodeId);
/** The stream position at which the node was admitted after waiting for memory. */
const admittedAt = (run: Json, nodeId: string) => waitEvents(run, nodeId).find((e) => e.waitingFor === null)!.pos as number;

describe('SVC_MEMORY_BUDGET=400MB, a node with a history of 300 MB', () => {
  let server: TestServer;
  beforeAll(async () => {
    // At info: the log says what a node waiting for memory was estimated at, and from what.
    server = await startServer({ socket: true, env: { SVC_MEMORY_BUDGET: '400MB', SVC_LOG_LEVEL: 'info' } });
  });

  it('waits behind a running 200 MB node while a 50 MB one would have fitted; the 50 MB one waits its turn, and both run', async () => {
    // The history: three runs of 300 MiB each, each alone (admitted at the bash default, 100 MiB).
    writeFileSync(join(dir, 'release-hungry'), '');
    const peaks: number[] = [];
    for (let i = 0; i < MEMORY_HISTORY_MIN_PEAKS; i++) {
      const run = await waitForRun(server, await startRun(server, 'hungry', { message: '', cwd: project }), undefined, 30_000);
      expect(run.status).toBe('completed');
      expect(waitEvents(run, 'eat')).toEqual([]);
      expect(run.nodes.eat.peakRssBytes).toBeGreaterThan(300 * MiB * 0.85);
      peaks.push(run.nodes.eat.peakRssBytes);
    }
    rmSync(join(dir, 'release-hungry'));

    const holder = await startRun(server, 'holder', { message: '', cwd: project });
    await waitForRun(server, holder, running('hold'));
    // 200 MB running + its default 100 MiB would fit 400 MB; its history (p95 of three: the largest) does not.
    const hungry = await startRun(server, 'hungry', { message: '', cwd: project });
    await waitForRun(server, hungry, waitingForMemory('eat'));
    const said = await waitFor(() => readLog(server.home).find((line) => line.event === 'run.node_waiting_for_memory' && line.runId === hungry));
    expect(said).toMatchObject({ nodeId: 'eat', source: 'history', estimateBytes: Math.max(...peaks) });
    // 200 + 50 fits 400, but the 300 MB node came first: the small one is not let past it.
    const small = await startRun(server, 'small', { message: '', cwd: project });
    await waitForRun(server, small, waitingForMemory('small'));
    expect((await waitForRun(server, hungry, () => true)).nodes.eat).toMatchObject({ status: 'waiting', waitingFor: 'memory' });

    writeFileSync(join(dir, 'release-holder'), '');
    expect((await waitForRun(server, holder)).status).toBe('completed');
    await waitForRun(server, hungry, running('eat'));
    writeFileSync(join(dir, 'release-hungry'), '');
    const [ate, smallRun] = [await waitForRun(server, hungry, undefined, 30_000), await waitForRun(server, small)];
    expect(ate.status).toBe('completed');
    expect(smallRun.status).toBe('completed');
    expect(smallRun.nodes.small.output).toContain('small');
    expect(waitEvents(ate, 'eat').map((e) => e.waitingFor)).toEqual(['memory', null]);
    expect(waitEvents(smallRun, 'small').map((e) => e.waitingFor)).toEqual(['memory', null]);
    // Never starved, never passed: the 300 MB node was admitted first.
    expect(admittedAt(ate, 'eat')).toBeLessThan(admittedAt(smallRun, 'small'));
  }, 90_000);
});

describe('SVC_MEMORY_BUDGET=1GB: four parallel runs whose test nodes each want 40% of it', () => {
  let server: TestServer;
  let runs: Json[];
  beforeAll(async () => {
    server = await startServer({ socket: true, env: { SVC_MEMORY_BUDGET: '1GB', SVC_MAX_CONCURRENT_RUNS: '4' } });
    const ids = await Promise.all([1, 2, 3, 4].map(() => startRun(server, 'suite', { message: '', cwd: project })));
    runs = await Promise.all(ids.map((id) => waitForRun(server, id, undefined, 60_000)));
  }, 70_000);

  it('never run more than two at once, and all finish', () => {
    expect(runs.map((run) => run.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    // What the processes themselves noted: each one's span, from its first line to its last.
    const file = join(dir, 'suite-times');
    expect(existsSync(file)).toBe(true);
    const changes = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' '))
      .map(([runId, what, at]) => ({ runId: runId!, delta: what === 'start' ? 1 : -1, at: Number(at) }));
    expect(new Set(changes.map((change) => change.runId))).toEqual(new Set(runs.map((run) => run.id)));
    expect(changes).toHaveLength(8);
    // Ends before starts at the same instant: a node admitted as another ends does not overlap it.
    changes.sort((a, b) => a.at - b.at || a.delta - b.delta);
    let now = 0;
    let most = 0;
    for (const change of changes) most = Math.max(most, (now += change.delta));
    expect(most).toBe(2);
    // The other two waited for memory, not for a run slot.
    expect(runs.filter((run) => waitEvents(run, 'test').some((e) => e.waitingFor === 'memory'))).toHaveLength(2);
  });

  it("`svc runs show` says which node used what: each test node's peak", async () => {
    for (const run of runs) {
      const { peakRssBytes } = run.nodes.test;
      expect(peakRssBytes).toBeGreaterThan(50 * MiB * 0.85);
      expect(peakRssBytes).toBeLessThan(50 * MiB + 60e6);
      const shown = await runSvcInProcess(['runs', 'show', run.id], { SVC_URL: server.url });
      expect(shown.code, shown.stderr).toBe(0);
      // Not a terminal: the table's rows are tab-separated (NODE STATUS DURATION COST ATTEMPTS TOOLS MEMORY CPU NOTE).
      const row = shown.stdout
        .split('\n')
        .find((line) => line.startsWith('test\t'))!
        .split('\t');
      expect(row[6]).toBe(formatSize(peakRssBytes));
    }
  });
});
