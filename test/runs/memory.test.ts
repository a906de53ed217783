// What a run costs the machine (docs/decisions.md): svc samples the memory of each node's process
// tree from /proc, records each node's peak and CPU time and the run's peak, and stops a node over
// its `max_memory` with its process group, failed `memory_exceeded`.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSize } from '../../src/shared/size.js';
import { validateWorkflowSource } from '../../src/workflows/index.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import type { TestServer } from '../helpers/server.js';
import {
  cleanupAll,
  type Json,
  isAlive,
  projectWithWorkflows,
  readPidFile,
  startRun,
  startServer,
  tempDir,
  waitForDeath,
  waitForRun,
} from '../helpers/runs.js';

const MiB = 1024 * 1024;
let server: TestServer;
let project: string;
let holderPidFile: string;
let escapedPidFile: string;

// bytes(n) is zeroed lazily by the kernel; multiplying a one-byte string writes every byte, so the pages are resident.
const hold = (mib: number, seconds: number, pidFile?: string) =>
  `python3 -c "import os, time${pidFile ? `; open('${pidFile}', 'w').write(str(os.getpid()))` : ''}; b = b'x' * (${mib} * 1024 * 1024); time.sleep(${seconds})"`;

beforeAll(async () => {
  const dir = await tempDir('svc-memory-');
  holderPidFile = join(dir, 'holder.pid');
  escapedPidFile = join(dir, 'escaped.pid');
  project = await projectWithWorkflows([
    { name: 'holds-300', nodes: [{ id: 'hold', bash: hold(300, 2) }] },
    {
      name: 'over-limit',
      nodes: [{ id: 'greedy', bash: `${hold(300, 30, holderPidFile)}; echo survived`, max_memory: '100MB', retry: { max_attempts: 2 } }],
    },
    // The holder leaves the node's process group (a new session): a group kill alone misses it.
    { name: 'escapes', nodes: [{ id: 'greedy', bash: `setsid ${hold(300, 30, escapedPidFile)}; echo survived`, max_memory: '100MB' }] },
    { name: 'agent', nodes: [{ id: 'ask', prompt: 'say hello' }] },
    { name: 'busy', nodes: [{ id: 'spin', bash: `python3 -c "import time${'\n'}t = time.time()${'\n'}while time.time() - t < 1.5: pass"` }] },
  ]);
  // On an ephemeral port: `svc runs show` reads the run over HTTP, as from another terminal.
  server = await startServer({ socket: true });
});
afterAll(async () => {
  await cleanupAll();
});

describe('a node holding 300 MiB for 2 s', () => {
  let run: Json;
  beforeAll(async () => {
    run = await waitForRun(server, await startRun(server, 'holds-300', { message: '', cwd: project }), undefined, 30_000);
  }, 35_000);

  it('records its peak resident memory within 15%, on the node and the run', () => {
    expect(run.status).toBe('completed');
    const { peakRssBytes } = run.nodes.hold;
    expect(peakRssBytes).toBeGreaterThan(300 * MiB * 0.85);
    expect(peakRssBytes).toBeLessThan(300 * MiB * 1.15);
    expect(run.peakRssBytes).toBeGreaterThanOrEqual(peakRssBytes);
    expect(run.peakRssBytes).toBeLessThan(300 * MiB * 1.15);
    expect(run.nodes.hold.maxMemoryBytes).toBeUndefined();
  });

  it("`svc runs show` gives the node's peak and CPU time and the run's peak in human sizes", async () => {
    const shown = await runSvcInProcess(['runs', 'show', run.id], { SVC_URL: server.url });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`peak memory: ${formatSize(run.peakRssBytes)}`);
    // Not a terminal: the table's rows are tab-separated (NODE STATUS DURATION COST ATTEMPTS TOOLS MEMORY CPU NOTE).
    const row = shown.stdout
      .split('\n')
      .find((line) => line.startsWith('hold\t'))!
      .split('\t');
    expect(row.slice(6, 8)).toEqual([formatSize(run.nodes.hold.peakRssBytes), `${run.nodes.hold.cpuSeconds}s`]);
    expect(formatSize(run.peakRssBytes)).toMatch(/^3\d\d MB$/);
  });
});

it('stops a node over its max_memory with its process group, failed memory_exceeded, after each attempt its retry allows', async () => {
  const runId = await startRun(server, 'over-limit', { message: '', cwd: project });
  const run = await waitForRun(server, runId, undefined, 40_000);
  expect(run.status).toBe('failed');
  expect(run.errorCode).toBe('memory_exceeded');
  const node = run.nodes.greedy;
  expect(node).toMatchObject({ status: 'failed', errorCode: 'memory_exceeded', attempts: 2, maxMemoryBytes: 100_000_000 });
  expect(node.error).toMatch(/^its processes reached \d+(\.\d)? MB, over max_memory 100 MB, and were stopped$/);
  expect(node.peakRssBytes).toBeGreaterThan(100_000_000);
  expect(node.logTail ?? '').not.toContain('survived');
  const failed = run.events.find((e: Json) => e.type === 'node_failed' && e.nodeId === 'greedy');
  expect(failed).toMatchObject({ code: 'memory_exceeded', attempts: 2 });
  // The last attempt's holder (each one writes the file) is gone, not only its bash.
  const pid = await readPidFile(holderPidFile);
  // Read from /proc: gone, or a zombie whose reaper (this container's init) has not come yet — nothing runs.
  await waitForDeath(pid);
  expect(isAlive(pid)).toBe(false);
}, 50_000);

it('stops a process that left the group too, within a second of passing max_memory', async () => {
  const runId = await startRun(server, 'escapes', { message: '', cwd: project });
  const pid = await readPidFile(escapedPidFile);
  const run = await waitForRun(server, runId, undefined, 20_000);
  expect(run.nodes.greedy).toMatchObject({ status: 'failed', errorCode: 'memory_exceeded' });
  // Allocating 300 MiB takes a fraction of a second; the sample after it stops everything at once.
  expect(run.nodes.greedy.durationMs).toBeLessThan(2_500);
  await waitForDeath(pid);
  expect(isAlive(pid)).toBe(false);
}, 30_000);

it("records a busy node's CPU time", async () => {
  const run = await waitForRun(server, await startRun(server, 'busy', { message: '', cwd: project }), undefined, 30_000);
  expect(run.status).toBe('completed');
  expect(run.nodes.spin.cpuSeconds).toBeGreaterThan(0);
  expect(run.nodes.spin.peakRssBytes).toBeGreaterThan(0);
}, 35_000);

it("samples an agent node's process tree too", async () => {
  const run = await waitForRun(server, await startRun(server, 'agent', { message: '', cwd: project }), undefined, 30_000);
  expect(run.status).toBe('completed');
  expect(run.nodes.ask.peakRssBytes).toBeGreaterThan(0);
  expect(run.nodes.ask.cpuSeconds).toBeGreaterThanOrEqual(0);
}, 35_000);

describe('max_memory in the workflow schema', () => {
  const source = (value: string) =>
    ['name: m', 'description: d', `max_memory: 2GB`, 'nodes:', '  - id: a', '    bash: "true"', `    max_memory: ${value}`].join('\n');

  it('reads sizes with decimal and binary units, the node over the workflow', () => {
    const cases: Array<[string, number]> = [
      ['600MB', 600_000_000],
      ['2GB', 2_000_000_000],
      ['512KiB', 512 * 1024],
      ['1.5GiB', 1.5 * 1024 ** 3],
    ];
    for (const [value, bytes] of cases) {
      const result = validateWorkflowSource(source(value));
      expect(result.ok && result.workflow.nodes[0]!.maxMemoryBytes, value).toBe(bytes);
    }
    const inherited = validateWorkflowSource(['name: m', 'description: d', 'max_memory: 2GB', 'nodes:', '  - id: a', '    bash: "true"'].join('\n'));
    expect(inherited.ok && inherited.workflow.nodes[0]!.maxMemoryBytes).toBe(2_000_000_000);
  });

  it('refuses a bad size with its place and how a size is written', () => {
    const result = validateWorkflowSource(source('lots'), { filename: 'm.yaml' });
    expect(!result.ok && result.errors).toEqual([
      "m.yaml:7:17: nodes[0].max_memory: invalid size 'lots' (use a number and a unit, such as 512KiB, 600MB, 2GB, 1.5GiB)",
    ]);
    const bare = validateWorkflowSource(source('100'), { filename: 'm.yaml' });
    expect(!bare.ok && bare.errors).toEqual([
      'm.yaml:7:17: nodes[0].max_memory: expected a size (a number and a unit, such as 512KiB, 600MB, 2GB, 1.5GiB), got a whole number (100)',
    ]);
  });

  it('refuses max_memory on a node that runs no process', () => {
    const result = validateWorkflowSource(
      ['name: m', 'description: d', 'nodes:', '  - id: a', '    approval: { message: ok }', '    max_memory: 1GB'].join('\n'),
    );
    expect(!result.ok && result.errors[0]).toContain('max_memory applies to a node that runs a process (prompt, command, bash); an approval node has none');
  });
});
