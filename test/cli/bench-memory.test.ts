// Issue 33, the showing of it: a node's peak memory beside its time and cost in `svc bench` and
// `GET /api/runs/benchmark` (per node and per version), and a running node's live figure in
// `svc run --verbose`. A real `svc serve` on an ephemeral port, real bash nodes holding memory
// through python3, and the built CLI.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSize } from '../../src/shared/size.js';
import { runCli } from '../helpers/cli.js';
import { killAllServes, spawnCli, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { api, cleanupAll, projectWithWorkflows, startRun, tempDir, waitFor, waitForRun, writeWorkflows, type Json } from '../helpers/runs.js';

const MiB = 1024 * 1024;
let serve: ServeProcess;
let project: string;
let release: string;

// Multiplying a one-byte string writes every byte, so the pages are resident (not lazily zeroed).
const hold = (mib: number, seconds: number) => `python3 -c "import time; b = b'x' * (${mib} * 1024 * 1024); time.sleep(${seconds})"`;
/** Holds `mib` until `file` exists: the test lets it go once it has seen what it looks for, no clock involved. */
const holdUntil = (mib: number, file: string) =>
  `python3 -c "import os, time${'\n'}b = b'x' * (${mib} * 1024 * 1024)${'\n'}while not os.path.exists('${file}'): time.sleep(0.05)"`;
const hungry = (mib: number) => ({
  name: 'hungry',
  nodes: [
    { id: 'test', bash: hold(mib, 1.5) },
    { id: 'report', bash: 'echo done', depends_on: ['test'] },
  ],
});

async function runToEnd(workflow: string): Promise<Json> {
  const run = await waitForRun(serve, await startRun(serve, workflow, { message: '', cwd: project }), undefined, 30_000);
  expect(run.status).toBe('completed');
  return run;
}

beforeAll(async () => {
  release = join(await tempDir('svc-bench-memory-'), 'release');
  project = await projectWithWorkflows([hungry(100), { name: 'live', nodes: [{ id: 'hold', bash: holdUntil(200, release) }] }]);
  serve = await spawnServe({ home: await tempDir('svc-bench-memory-home-'), cwd: project });
  await runToEnd('hungry');
  await runToEnd('hungry');
  // The edit under suspicion: the test node now holds 250 MiB.
  await writeWorkflows(project, [hungry(250)]);
  await runToEnd('hungry');
}, 120_000);
afterAll(async () => {
  await killAllServes();
  await cleanupAll();
});

describe('peak memory in the benchmark', () => {
  it('GET /api/runs/benchmark gives each node p50 and p95 of its peak memory', async () => {
    const { status, body } = await api(serve, 'GET', '/api/runs/benchmark?workflow=hungry');
    expect(status).toBe(200);
    const test = body.nodes.find((node: Json) => node.stepName === 'test');
    // Three runs: 100, 100 and 250 MiB held; nearest rank puts p50 on a 100 MiB run and p95 on the 250 MiB one.
    expect(test.peakRssP50Bytes).toBeGreaterThan(100 * MiB * 0.85);
    expect(test.peakRssP50Bytes).toBeLessThan(100 * MiB * 1.3);
    expect(test.peakRssP95Bytes).toBeGreaterThan(250 * MiB * 0.85);
    expect(test.peakRssP95Bytes).toBeLessThan(250 * MiB * 1.15);
    // The spec's fields are all still there.
    expect(test).toMatchObject({ totalRuns: 3, runsWithCost: 0, totalCostUsd: 0 });
    expect(typeof test.p50Ms).toBe('number');
  });

  it('group=version gives each version its nodes peak memory: the edit made the test node hungrier', async () => {
    const { body } = await api(serve, 'GET', '/api/runs/benchmark?workflow=hungry&group=version');
    expect(body.versions.map((v: Json) => v.runs)).toEqual([1, 2]);
    const [after, before] = body.versions.map((v: Json) => v.nodes.find((node: Json) => node.stepName === 'test'));
    expect(before.runs).toBe(2);
    expect(after.peakRssP50Bytes - before.peakRssP50Bytes).toBeGreaterThan(100 * MiB);
  });

  it('`svc bench` prints the peaks in human sizes beside time and cost', async () => {
    const { body } = await api(serve, 'GET', '/api/runs/benchmark?workflow=hungry');
    const shown = await runCli(['bench', 'hungry'], { env: { SVC_URL: serve.url, NO_COLOR: '1' } });
    expect(shown.code, shown.stderr).toBe(0);
    const test = body.nodes.find((node: Json) => node.stepName === 'test');
    // Piped: tab-separated NODE P50 P95 RUNS COST MEM P50 MEM P95.
    const row = shown.stdout.split('\n').find((line) => line.startsWith('test\t'))!;
    expect(row.split('\t').slice(3)).toEqual(['3', '-', formatSize(test.peakRssP50Bytes), formatSize(test.peakRssP95Bytes)]);
    expect(formatSize(test.peakRssP95Bytes)).toMatch(/^2\d\d MB$/);
  });

  it('`svc bench --by-version` lists each version peak per node against the version before', async () => {
    const shown = await runCli(['bench', 'hungry', '--by-version'], { env: { SVC_URL: serve.url, NO_COLOR: '1' } });
    expect(shown.code, shown.stderr).toBe(0);
    const [, memory] = shown.stdout.split('peak memory per node:\n');
    const rows = memory!
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
    const tests = rows.filter((row) => row[1] === 'test');
    expect(tests.map((row) => row[2])).toEqual(['1', '2']);
    // VERSION NODE RUNS MEM P50 Δ MEM P50 MEM P95: the newer version is 150 MB or so hungrier.
    expect(tests[0]![4]).toMatch(/^\+1\d\d MB \(\+\d+%\)$/);
    expect(tests[1]![4]).toBe('-');
  });
});

describe('a running node memory, live', () => {
  it('`svc run --verbose` prints the figure while the node runs', async () => {
    const cli = spawnCli(['run', 'live', '--verbose'], { SVC_URL: serve.url, NO_COLOR: '1' }, project);
    // Seen before the node may end: it ends only when the test lets it go.
    const figures = () => [...cli.stdout().matchAll(/^\[hold\] memory (\d+) MB \(peak (\d+) MB\)$/gm)];
    // The first figure may come while python is still filling its 200 MiB: the one that counts is past 150 MB.
    const line = await waitFor(
      () => figures().find((match) => Number(match[1]) > 150),
      30_000,
      () => cli.stdout() + cli.stderr(),
    );
    expect(Number(line[2])).toBeGreaterThanOrEqual(Number(line[1]));
    await writeFile(release, '');
    const result = await cli.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/✔ hold/);
  }, 45_000);
});
