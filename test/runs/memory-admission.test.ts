// Memory admission (docs/contract.md, "Memory admission"): SVC_MEMORY_BUDGET bounds the memory of
// the nodes running at once on a server; a node whose estimate (its `memory:` here, so the test is
// deterministic) does not fit waits `waiting` with `waitingFor: "memory"`, first come, first served.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryAdmission, readMemInfo } from '../../src/processes/index.js';
import { loadSettings } from '../../src/shared/settings.js';
import { validateWorkflowSource } from '../../src/workflows/index.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import type { TestServer } from '../helpers/server.js';
import { api, cleanupAll, getRun, type Json, projectWithWorkflows, startRun, startServer, tempDir, waitForRun } from '../helpers/runs.js';

let server: TestServer;
let project: string;
let dir: string;

// A real process holding 20 MiB (every byte written, so resident) until `file` exists.
const holdUntil = (file: string) =>
  `python3 -c "import os, time; b = b'x' * (20 * 1024 * 1024); [time.sleep(0.05) for _ in iter(lambda: os.path.exists('${file}'), True)]"`;

beforeAll(async () => {
  dir = await tempDir('svc-admission-');
  project = await projectWithWorkflows([
    { name: 'three-hundred', nodes: [{ id: 'hold', bash: holdUntil(join(dir, 'release-300')), memory: '300MB' }] },
    { name: 'holds-a', nodes: [{ id: 'hold', bash: holdUntil(join(dir, 'release-a')), memory: '200MB' }] },
    { name: 'big-b', nodes: [{ id: 'big', bash: holdUntil(join(dir, 'release-b')), memory: '300MB' }] },
    { name: 'small-c', nodes: [{ id: 'small', bash: 'echo small', memory: '150MB' }] },
    { name: 'holds-c', nodes: [{ id: 'hold', bash: holdUntil(join(dir, 'release-c')), memory: '300MB' }] },
    { name: 'too-big', nodes: [{ id: 'huge', bash: 'echo alone', memory: '2GB' }] },
  ]);
  server = await startServer({ socket: true, env: { SVC_MEMORY_BUDGET: '400MB' } });
});
afterAll(cleanupAll);

const node = async (runId: string, nodeId: string): Promise<Json> => (await getRun(server, runId)).nodes[nodeId];
const running = (nodeId: string) => (run: Json) => run.nodes[nodeId].status === 'running' && run.nodes[nodeId].waitingFor === undefined;
const waitingForMemory = (nodeId: string) => (run: Json) => run.nodes[nodeId].status === 'waiting' && run.nodes[nodeId].waitingFor === 'memory';
const waits = (run: Json, nodeId: string) => (run.events as Json[]).filter((e) => e.type === 'node_waiting' && e.nodeId === nodeId).map((e) => e.waitingFor);

describe('SVC_MEMORY_BUDGET=400MB', () => {
  it("with room for one 300 MB node, a second run's node waits for memory until the first ends, then runs", async () => {
    const first = await startRun(server, 'three-hundred', { message: '', cwd: project });
    await waitForRun(server, first, running('hold'));
    const second = await startRun(server, 'three-hundred', { message: '', cwd: project });
    await waitForRun(server, second, waitingForMemory('hold'));
    // It holds nothing while it waits: no process of it runs.
    expect(await node(second, 'hold')).toMatchObject({ status: 'waiting', waitingFor: 'memory' });
    expect((await node(second, 'hold')).peakRssBytes).toBeUndefined();

    const shown = await runSvcInProcess(['runs', 'show', second], { SVC_URL: server.url });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/hold\s+waiting.*waiting for memory/);

    writeFileSync(join(dir, 'release-300'), '');
    const a = await waitForRun(server, first);
    const b = await waitForRun(server, second);
    expect(a.status).toBe('completed');
    expect(b.status).toBe('completed');
    expect(waits(a, 'hold')).toEqual([]);
    expect(waits(b, 'hold')).toEqual(['memory', null]);
    expect(b.nodes.hold.waitingFor).toBeUndefined();
  }, 60_000);

  it('a 300 MB node waits while a 150 MB one behind it would have fitted; the small one waits its turn, and both run', async () => {
    const a = await startRun(server, 'holds-a', { message: '', cwd: project });
    await waitForRun(server, a, running('hold'));
    const b = await startRun(server, 'big-b', { message: '', cwd: project });
    await waitForRun(server, b, waitingForMemory('big'));
    // 200 + 150 fits 400, but the 300 MB node came first: the small one is not let past it.
    const c = await startRun(server, 'small-c', { message: '', cwd: project });
    await waitForRun(server, c, waitingForMemory('small'));
    expect(await node(b, 'big')).toMatchObject({ status: 'waiting', waitingFor: 'memory' });

    // The first ends: the big one goes first; 300 + 150 does not fit, so the small one still waits.
    writeFileSync(join(dir, 'release-a'), '');
    expect((await waitForRun(server, a)).status).toBe('completed');
    await waitForRun(server, b, running('big'));
    expect(await node(c, 'small')).toMatchObject({ status: 'waiting', waitingFor: 'memory' });

    writeFileSync(join(dir, 'release-b'), '');
    const big = await waitForRun(server, b);
    const small = await waitForRun(server, c);
    expect(big.status).toBe('completed');
    expect(small.status).toBe('completed');
    expect(small.nodes.small.output).toContain('small');
    expect(waits(big, 'big')).toEqual(['memory', null]);
    expect(waits(small, 'small')).toEqual(['memory', null]);
  }, 60_000);

  it('a node larger than the whole budget is not blocked forever: it runs alone', async () => {
    const run = await waitForRun(server, await startRun(server, 'too-big', { message: '', cwd: project }));
    expect(run.status).toBe('completed');
    expect(waits(run, 'huge')).toEqual([]);
  }, 30_000);

  it('a waiting node cancelled leaves the memory queue, never having run', async () => {
    const holder = await startRun(server, 'holds-c', { message: '', cwd: project });
    await waitForRun(server, holder, running('hold'));
    const waiter = await startRun(server, 'small-c', { message: '', cwd: project });
    await waitForRun(server, waiter, waitingForMemory('small'));
    expect((await api(server, 'POST', `/api/workflows/runs/${waiter}/cancel`)).status).toBe(200);
    const gone = await waitForRun(server, waiter);
    expect(gone.status).toBe('cancelled');
    expect(gone.nodes.small).toMatchObject({ status: 'cancelled', error: 'cancelled' });
    expect(gone.nodes.small.waitingFor).toBeUndefined();
    expect((gone.events as Json[]).some((e) => e.type === 'node_output')).toBe(false);
    writeFileSync(join(dir, 'release-c'), '');
    expect((await waitForRun(server, holder)).status).toBe('completed');
  }, 30_000);
});

describe('the admission rules, with a given /proc/meminfo', () => {
  const MB = 1e6;
  const never = new AbortController().signal;
  /** Whether a request of `bytes` is granted now (it is withdrawn again otherwise). */
  const grantedNow = async (admission: MemoryAdmission, bytes: number) => {
    const stop = new AbortController();
    let waited = false;
    const grant = admission.acquire(bytes, stop.signal, () => (waited = true));
    if (waited) stop.abort();
    await grant.catch(() => undefined);
    return !waited;
  };

  it('counts a running node at the larger of its estimate and its latest sample', async () => {
    const admission = new MemoryAdmission({ budgetBytes: 400 * MB, meminfo: () => ({ totalBytes: 8000 * MB, availableBytes: 4000 * MB }) });
    const first = await admission.acquire(100 * MB, never);
    expect(await grantedNow(admission, 250 * MB)).toBe(true);
    first.measured(300 * MB);
    expect(await grantedNow(admission, 250 * MB)).toBe(false);
    first.release();
  });

  it("keeps MemAvailable's floor, but never blocks a node when nothing runs", async () => {
    let available = 1000 * MB;
    const admission = new MemoryAdmission({
      budgetBytes: 4000 * MB,
      floorBytes: 256 * MB,
      meminfo: () => ({ totalBytes: 8000 * MB, availableBytes: available }),
    });
    const alone = await admission.acquire(900 * MB, never);
    expect(await grantedNow(admission, 800 * MB)).toBe(false);
    available = 3000 * MB;
    expect(await grantedNow(admission, 800 * MB)).toBe(true);
    alone.release();
  });

  it("background work (a pool's refill) gets a place only when nothing waits and it fits, and gives it back the moment a node must wait", async () => {
    const admission = new MemoryAdmission({ budgetBytes: 400 * MB, meminfo: () => ({ totalBytes: 8000 * MB, availableBytes: 4000 * MB }) });
    let yielded = 0;
    const node = await admission.acquire(300 * MB, never);
    // No room beside the 300 MB node: refused outright, never queued.
    expect(admission.tryAcquireYielding(200 * MB, () => yielded++)).toBeNull();
    node.release();
    const background = admission.tryAcquireYielding(200 * MB, () => yielded++);
    expect(background).not.toBeNull();
    // A node that fits beside it is admitted as usual; one that does not takes the background's place at once.
    const small = await admission.acquire(100 * MB, never);
    expect(yielded).toBe(0);
    const big = await admission.acquire(250 * MB, never);
    await Promise.resolve();
    expect(yielded).toBe(1);
    // Its later release changes nothing: the place was given back already (250 + 100 fits; with its 200 it would not).
    background!.release();
    small.release();
    expect(await grantedNow(admission, 100 * MB)).toBe(true);
    big.release();
  });

  it('defaults to 75% of MemTotal; SVC_MEMORY_BUDGET takes a size', () => {
    expect(new MemoryAdmission({ budgetBytes: null, meminfo: () => ({ totalBytes: 1000 * MB, availableBytes: 500 * MB }) }).budgetBytes).toBe(750 * MB);
    expect(loadSettings({ SVC_MEMORY_BUDGET: '2GB' }).memoryBudgetBytes).toBe(2e9);
    expect(loadSettings({}).memoryBudgetBytes).toBeNull();
    expect(() => loadSettings({ SVC_MEMORY_BUDGET: '2048' })).toThrow(/SVC_MEMORY_BUDGET must be a size/);
    expect(readMemInfo()?.totalBytes).toBeGreaterThan(0);
  });

  it('SVC_MEMORY_SAMPLE_MS sets how often trees are measured; 0 measures nothing', async () => {
    expect(loadSettings({}).memorySampleMs).toBe(500);
    expect(loadSettings({ SVC_MEMORY_SAMPLE_MS: '0' }).memorySampleMs).toBe(0);
    expect(() => loadSettings({ SVC_MEMORY_SAMPLE_MS: '-5' })).toThrow(/SVC_MEMORY_SAMPLE_MS must be an integer of at least 0/);
    const off = await startServer({ env: { SVC_MEMORY_SAMPLE_MS: '0' } });
    const run = await waitForRun(off, await startRun(off, 'small-c', { message: '', cwd: project }));
    expect(run.status).toBe('completed');
    expect(run.nodes.small.peakRssBytes).toBeUndefined();
    expect(run.peakRssBytes ?? null).toBeNull();
    // On the measuring server, the same node has its figure (0 when its `echo` ended before the first reading).
    const on = await waitForRun(server, await startRun(server, 'small-c', { message: '', cwd: project }));
    expect(on.nodes.small.peakRssBytes).toEqual(expect.any(Number));
  });
});

describe('`memory:` in a workflow', () => {
  const source = (extra: string) => ['name: m', 'description: d', 'nodes:', '  - id: a', extra, '    memory: 600MB'].join('\n');

  it('is a size in bytes on a process node', () => {
    const result = validateWorkflowSource(source('    bash: "true"'));
    expect(result.ok && result.workflow.nodes[0]!.memoryBytes).toBe(600_000_000);
  });

  it('is refused on a node that runs no process, and as a bare number', () => {
    const gate = validateWorkflowSource(source('    approval: { message: ok }'));
    expect(!gate.ok && gate.errors.join('\n')).toContain('memory applies to a node that runs a process');
    const bare = validateWorkflowSource(source('    bash: "true"').replace('600MB', '600'));
    expect(!bare.ok && bare.errors.join('\n')).toContain('nodes[0].memory: expected a size');
  });
});
