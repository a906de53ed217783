// `svc bench <workflow>`, `svc bench compare`, `svc bench workflows` and `svc runs list --since/--until`,
// in process on a store of hand-made run records (no server: the routes run in process), and
// `--json` through a server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { makeHome, startTestServer } from '../helpers/server.js';
import { runId, writeRuns, type RunFixture } from '../helpers/run-records.js';

const HOUR = 3_600_000;
const [V1, V2] = ['11111111', '22222222'];
let home: string;
const svc = (args: string[], tty = false) => runSvcInProcess(args, { SVC_HOME: home }, { tty });

beforeAll(async () => {
  home = await makeHome();
  const now = Date.now();
  const runs: RunFixture[] = [];
  // Run i (1–10) took i seconds and ended (10 − i) hours ago; `test` is the slow node.
  for (let i = 1; i <= 10; i++) {
    runs.push({
      id: runId(i),
      workflow: 'build',
      ms: 1000 * i,
      finishedAtMs: now - (10 - i) * HOUR,
      nodes: { lint: { ms: 100 * i }, test: { ms: 400 * i, cost: 0.01 }, deploy: { ms: 50 } },
      costUsd: 0.01,
    });
  }
  runs.push({ id: runId(11), workflow: 'other', ms: 10, finishedAtMs: now, nodes: { only: { ms: 10 } } });
  // Two versions of `versioned`: 1 s and $0.01 a run, then (after an edit) 2–3 s and $0.02 a run.
  [1000, 1000, 2000, 2000, 3000].forEach((ms, i) =>
    runs.push({
      id: runId(20 + i),
      workflow: 'versioned',
      ms,
      finishedAtMs: now - (50 - i) * HOUR,
      costUsd: i < 2 ? 0.01 : 0.02,
      definitionHash: (i < 2 ? V1 : V2) + '0'.repeat(56),
    }),
  );
  await writeRuns(home, runs);
});

describe('svc bench', () => {
  it('prints the summary line and one line per node when piped', async () => {
    const result = await svc(['bench', 'build']);
    expect(result.code, result.stderr).toBe(0);
    const [summary, ...nodes] = result.stdout.trim().split('\n');
    expect(summary).toBe('build: 10 runs · p50 5.0s · p95 10.0s · p99 10.0s · $0.10');
    expect(nodes).toEqual(['lint\t500ms\t1.0s\t10\t-', 'test\t2.0s\t4.0s\t10\t$0.10', 'deploy\t50ms\t50ms\t10\t-']);
  });

  it('draws a bar of each node p50 on a TTY, the slowest longest', async () => {
    const result = await svc(['bench', 'build', '--no-color'], true);
    expect(result.code, result.stderr).toBe(0);
    const barOf = (node: string) =>
      result.stdout
        .split('\n')
        .find((line) => line.trim().startsWith(node))!
        .match(/[█▏▎▍▌▋▊▉]+/)![0];
    expect(barOf('test')).toBe('█'.repeat(24));
    expect(barOf('lint')).toBe('██████');
    expect(barOf('deploy')).toBe('▋');
  });

  it('takes --since and --limit; bad ones are usage errors (exit 2)', async () => {
    expect((await svc(['bench', 'build', '--since', '3h'])).stdout).toMatch(/^build: 3 runs · p50 9\.0s/);
    expect((await svc(['bench', 'build', '--limit', '1'])).stdout).toMatch(/^build: 1 run · p50 10\.0s/);
    for (const args of [
      ['--since', 'soon'],
      ['--limit', '201'],
      ['--limit', 'x'],
    ]) {
      const result = await svc(['bench', 'build', ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).not.toBe('');
    }
  });

  it('says so when a workflow has no runs (exit 0)', async () => {
    const result = await svc(['bench', 'nothing']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/No completed or failed runs of 'nothing'/);
  });

  it('compares two runs node by node with a total; exit 0', async () => {
    const result = await svc(['bench', 'compare', runId(1), runId(3)]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([
      'lint\t100ms\t300ms\t+200ms\t-\t-',
      'test\t400ms\t1.2s\t+800ms\t$0.010\t$0.010',
      'deploy\t50ms\t50ms\t0ms\t-\t-',
      'total\t550ms\t1.6s\t+1.0s\t$0.010\t$0.010',
    ]);
    expect((await svc(['bench', 'compare', runId(1), 'run_none_such'])).code).toBe(1);
  });

  it('lists the workflows with runs', async () => {
    expect((await svc(['bench', 'workflows'])).stdout).toBe('build\nother\nversioned\n');
  });

  it('--by-version: one line per version, newest first, its p50 and cost per run against the version before', async () => {
    const result = await svc(['bench', 'versioned', '--by-version']);
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
    expect(rows.map((row) => [row[0], ...row.slice(2)])).toEqual([
      [V2, '3', '2.0s', '+1.0s (+100%)', '3.0s', '$0.020', '+$0.010 (+100%)'],
      [V1, '2', '1.0s', '-', '1.0s', '$0.010', '-'],
    ]);
    expect(rows[1]![1]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const json = JSON.parse((await svc(['bench', 'versioned', '--by-version', '--json'])).stdout);
    expect(json.versions.map((v: { runs: number }) => v.runs)).toEqual([3, 2]);
    expect((await svc(['bench', 'build', '--by-version'])).stderr).toMatch(/No completed or failed runs of 'build' with a recorded version/);
  });

  it('svc runs show prints the version; svc runs list --definition-hash lists the runs of that version', async () => {
    const shown = await svc(['runs', 'show', runId(20)]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`  version:  ${V1}\n`);
    expect(shown.stdout).toContain(`svc runs --workflow versioned --definition-hash ${V1}${'0'.repeat(56)}`);
    const listed = await svc(['runs', 'list', '--definition-hash', `${V1}${'0'.repeat(56)}`]);
    expect(
      listed.stdout
        .trim()
        .split('\n')
        .map((line) => line.split('\t')[0]),
    ).toEqual([runId(21), runId(20)]);
  });

  it('svc runs list --since/--until filter by creation time', async () => {
    const ids = (result: { stdout: string }) =>
      result.stdout
        .trim()
        .split('\n')
        .map((line) => line.split('\t')[0]);
    // Run i was created (10 − i) hours and i seconds ago.
    expect(ids(await svc(['runs', 'list', '--since', '2h']))).toEqual([runId(11), runId(10), runId(9)]);
    expect(ids(await svc(['runs', '--until', '8h', '--workflow', 'build']))).toEqual([runId(2), runId(1)]);
    expect((await svc(['runs', 'list', '--since', 'whenever'])).code).toBe(2);
  });

  it('--json prints the benchmark document through a server', async () => {
    const server = await startTestServer({ socket: true, home });
    try {
      const result = await runSvcInProcess(['--url', server.url, 'bench', 'build', '--json'], { SVC_HOME: home });
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({
        summary: { p50Ms: 5000, runs: 10 },
        nodes: [{ stepName: 'lint' }, { stepName: 'test' }, { stepName: 'deploy' }],
      });
    } finally {
      await server.stop({ keepHome: true });
    }
  });
});

afterAll(async () => {
  const { rm } = await import('node:fs/promises');
  await rm(home, { recursive: true, force: true });
});
