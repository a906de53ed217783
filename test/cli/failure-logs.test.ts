// A failed node's output in the terminal, the run detail and `svc runs logs` (issue 32: "The first
// hour"), and failures a workflow tolerates (`continue_on_error`). Against the built `svc serve`
// and the built CLI: real bash nodes, real files, the run's SSE stream for `--follow`.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { killAllServes, spawnCli, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { api, cleanupAll, projectWithWorkflows, startRun, tempDir, waitFor, waitForRun, waitForStatus, type Json } from '../helpers/runs.js';

/** The documented bounds of a failed node's `logTail`. */
const TAIL_LINES = 20;
const TAIL_BYTES = 4 * 1024;

let project: string;
let home: string;
let serve: ServeProcess;
let env: Record<string, string>;

beforeAll(async () => {
  project = await projectWithWorkflows([
    {
      // 30 numbered lines on stdout, then two on stderr, then exit 1: more lines than the tail keeps.
      name: 'failing',
      nodes: [{ id: 'test', bash: 'for i in $(seq 1 30); do echo "out $i"; done; echo "FAIL src/a.test.ts" >&2; echo "expected 1, got 2" >&2; exit 1' }],
    },
    {
      // One line of 10 000 bytes, then a failure: past the tail's byte bound.
      name: 'wide-failure',
      nodes: [{ id: 'wide', bash: "head -c 10000 /dev/zero | tr '\\0' w; echo; echo 'the end' >&2; exit 3" }],
    },
    {
      // Prints, then waits for the test's file before it prints its last line and ends.
      name: 'slow',
      nodes: [{ id: 'tick', bash: 'echo "tick 1"; echo "tock 1" >&2; while [ ! -e "$ARGUMENTS" ]; do sleep 0.05; done; echo "tick 2"' }],
    },
    {
      // Two nodes, each waiting for its own file in the directory the message names.
      name: 'chain',
      nodes: [
        { id: 'first', bash: 'echo "first waits"; while [ ! -e "$ARGUMENTS/first" ]; do sleep 0.05; done; echo "first done"' },
        { id: 'second', bash: 'while [ ! -e "$ARGUMENTS/second" ]; do sleep 0.05; done', depends_on: ['first'] },
      ],
    },
    {
      // 70 KiB first (past what node_output events carry), then the test's file, then a last line.
      name: 'slow-wide',
      nodes: [{ id: 'wide', bash: "head -c 71680 /dev/zero | tr '\\0' x; echo; while [ ! -e \"$ARGUMENTS\" ]; do sleep 0.05; done; echo 'last line'" }],
    },
    {
      // The case: a tolerated lint failure, an approval gate, then the rest.
      name: 'tolerant',
      nodes: [
        { id: 'lint', bash: 'echo "2 warnings"; echo "lint failed" >&2; exit 1', continue_on_error: true },
        { id: 'gate', approval: { message: 'Ship it?' }, depends_on: ['lint'] },
        { id: 'after', bash: 'echo "lint said: $lint.output"', depends_on: ['gate'] },
      ],
    },
    {
      name: 'tolerant-ok',
      nodes: [
        { id: 'lint', bash: 'echo "lint failed" >&2; exit 1', continue_on_error: true },
        { id: 'test', bash: 'echo ok', depends_on: ['lint'] },
      ],
    },
    {
      name: 'tolerant-then-fail',
      nodes: [
        { id: 'lint', bash: 'exit 1', continue_on_error: true },
        { id: 'test', bash: 'exit 2', depends_on: ['lint'] },
      ],
    },
  ]);
  home = await tempDir('svc-failure-logs-home-');
  serve = await spawnServe({ home, cwd: project });
  env = { SVC_URL: serve.url, NO_COLOR: '1' };
}, 60_000);
afterAll(async () => {
  await killAllServes();
  await cleanupAll();
});

const artifact = (runId: string, file: string) => join(home, 'data', 'runs', runId, 'artifacts', file);
const lines = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `out ${from + i}`);
/** The lines `svc run` and `svc runs show` print under a failed node. */
const tailLines = (stdout: string) => stdout.split('\n').flatMap((line) => (line.startsWith('  │ ') ? [line.slice(4)] : []));

describe('a failing bash node', () => {
  let run: Json;
  let cli: { code: number | null; stdout: string; stderr: string };
  beforeAll(async () => {
    cli = await runCli(['run', 'failing', '--cwd', project], { env });
    const listed = await api(serve, 'GET', '/api/workflows/runs?workflow=failing');
    run = await waitForRun(serve, listed.body.runs[0].id);
  }, 60_000);

  it('`svc run` prints its last lines, stdout and stderr, bounded to the last 20', () => {
    expect(cli.code, cli.stderr).toBe(1);
    expect(cli.stdout).toContain('✖ test exited with code 1\n');
    const expected = [...lines(13, 30), 'FAIL src/a.test.ts', 'expected 1, got 2'];
    expect(expected).toHaveLength(TAIL_LINES);
    expect(tailLines(cli.stdout)).toEqual(expected);
  });

  it('keeps them in the run detail: the node record and its node_failed event', () => {
    const expected = [...lines(13, 30), 'FAIL src/a.test.ts', 'expected 1, got 2'].join('\n');
    expect(run.nodes.test).toMatchObject({ status: 'failed', logTail: expected });
    expect(run.events.find((e: Json) => e.type === 'node_failed')).toMatchObject({ nodeId: 'test', logTail: expected });
  });

  it('`svc runs show` prints them under the table, and its --json has them (not null)', async () => {
    const shown = await runCli(['runs', 'show', run.id], { env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`test: last lines of its log (all of it: svc runs logs ${run.id} test)`);
    expect(tailLines(shown.stdout)).toEqual([...lines(13, 30), 'FAIL src/a.test.ts', 'expected 1, got 2']);
    const json = await runCli(['runs', 'show', run.id, '--json'], { env });
    expect(JSON.parse(json.stdout).nodes.test.logTail).toContain('expected 1, got 2');
  });

  it('`svc runs logs <run> <node>` prints its whole log, as the file has it', async () => {
    const logs = await runCli(['runs', 'logs', run.id, 'test'], { env });
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toBe(`${lines(1, 30).join('\n')}\nFAIL src/a.test.ts\nexpected 1, got 2\n`);
    expect(logs.stdout).toBe(readFileSync(artifact(run.id, 'test.log'), 'utf8'));
    // Every node, each under a header, without naming one; an unknown node is a 404 named as such.
    const all = await runCli(['runs', 'logs', run.id], { env });
    expect(all.stdout.startsWith('==> test (failed) <==\nout 1\n')).toBe(true);
    const unknown = await runCli(['runs', 'logs', run.id, 'nope'], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("has no node 'nope'");
  });

  it('the API answers the log in pages from a byte offset', async () => {
    const size = readFileSync(artifact(run.id, 'test.log')).length;
    const page = await api(serve, 'GET', `/api/workflows/runs/${run.id}/nodes/test/log?offset=6`);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ runId: run.id, nodeId: 'test', status: 'failed', offset: 6, nextOffset: size, size });
    expect(page.body.text.startsWith('out 2\n')).toBe(true);
    const bad = await api(serve, 'GET', `/api/workflows/runs/${run.id}/nodes/test/log?offset=-1`);
    expect(bad.status).toBe(400);
  });

  it('bounds the tail in bytes too: a long last line is cut at its start, marked', async () => {
    const wide = await waitForRun(serve, await startRun(serve, 'wide-failure', { message: '', cwd: project }));
    const tail: string = wide.nodes.wide.logTail;
    expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(TAIL_BYTES);
    expect(tail.startsWith('…www')).toBe(true);
    expect(tail.endsWith('w\nthe end')).toBe(true);
  });
});

describe('svc runs logs --follow', () => {
  it('streams a running node’s log until the node ends, then exits 0', async () => {
    const go = join(await tempDir('svc-follow-'), 'go');
    const runId = await startRun(serve, 'slow', { message: go, cwd: project });
    await waitFor(() => existsSync(artifact(runId, 'tick.log')) && readFileSync(artifact(runId, 'tick.log'), 'utf8').includes('tock 1'));
    const follower = spawnCli(['runs', 'logs', runId, 'tick', '--follow'], env, project);
    await waitFor(
      () => follower.stdout().includes('tock 1'),
      20_000,
      () => follower.stderr(),
    );
    // Still following: the node has not ended.
    expect(follower.stdout()).not.toContain('tick 2');
    writeFileSync(go, '');
    const done = await follower.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toBe('tick 1\ntock 1\ntick 2\n');
    expect((await waitForRun(serve, runId)).status).toBe('completed');
  }, 60_000);

  it('goes on past the 64 KiB the node_output events carry', async () => {
    const go = join(await tempDir('svc-follow-'), 'go');
    const runId = await startRun(serve, 'slow-wide', { message: go, cwd: project });
    const follower = spawnCli(['runs', 'logs', runId, 'wide', '--follow'], env, project);
    await waitFor(
      () => follower.stdout().length > 71680,
      20_000,
      () => follower.stderr(),
    );
    writeFileSync(go, '');
    const done = await follower.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toBe(`${'x'.repeat(71680)}\nlast line\n`);
  }, 60_000);

  it('ends when its node ends, while the run goes on with the next one', async () => {
    const dir = await tempDir('svc-follow-');
    const runId = await startRun(serve, 'chain', { message: dir, cwd: project });
    const follower = spawnCli(['runs', 'logs', runId, 'first', '--follow'], env, project);
    await waitFor(
      () => follower.stdout().includes('first waits'),
      20_000,
      () => follower.stderr(),
    );
    writeFileSync(join(dir, 'first'), '');
    const done = await follower.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toBe('first waits\nfirst done\n');
    // The run is still executing its second node.
    expect((await api(serve, 'GET', `/api/workflows/runs/${runId}`)).body.nodes.second.status).toBe('running');
    writeFileSync(join(dir, 'second'), '');
    expect((await waitForRun(serve, runId)).status).toBe('completed');
  }, 60_000);

  it('of a node that has ended prints its log and returns', async () => {
    const listed = await api(serve, 'GET', '/api/workflows/runs?workflow=failing');
    const logs = await runCli(['runs', 'logs', listed.body.runs[0].id, 'test', '--follow'], { env });
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout.endsWith('expected 1, got 2\n')).toBe(true);
  });
});

describe('continue_on_error: true', () => {
  it('leaves the run completed, approved past its gate, with the node failed and shown tolerated', async () => {
    const runId = await startRun(serve, 'tolerant', { message: '', cwd: project });
    const paused = await waitForStatus(serve, runId, 'paused');
    expect(paused.nodes.lint).toMatchObject({ status: 'failed', tolerated: true, output: '2 warnings', logTail: '2 warnings\nlint failed' });
    expect(paused.events.find((e: Json) => e.type === 'node_failed')).toMatchObject({ nodeId: 'lint', tolerated: true });
    const approved = await runCli(['approve', runId], { env });
    expect(approved.code, approved.stderr).toBe(0);
    // A completed run's exit status is 0, tolerated failures or not.
    const watched = await runCli(['watch', runId, '--exit-status'], { env });
    expect(watched.code, watched.stdout).toBe(0);
    const run = await waitForRun(serve, runId);
    expect(run.status).toBe('completed');
    expect(run.error).toBeNull();
    // Its dependents ran as after a success, its stdout as its output.
    expect(run.nodes.after).toMatchObject({ status: 'completed', output: 'lint said: 2 warnings' });
    const shown = await runCli(['runs', 'show', runId], { env });
    expect(shown.stdout).toMatch(new RegExp(`${runId}\\s+tolerant\\s+completed — 1 failure tolerated \\(lint\\)`));
    expect(shown.stdout).toMatch(/lint\s+failed.*tolerated \(continue_on_error\); exited with code 1/);
  }, 60_000);

  it('`svc run` shows the failure tolerated and exits 0 when everything else succeeds', async () => {
    const cli = await runCli(['run', 'tolerant-ok', '--cwd', project], { env });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain('✖ lint exited with code 1 (tolerated: continue_on_error)\n  │ lint failed\n');
    expect(cli.stdout).toMatch(/✔ test \d+ms/);
    expect(cli.stdout).toMatch(/\ncompleted tolerant-ok run_\w+ in .* — 1 failure tolerated \(lint\)\n$/);
  }, 60_000);

  it('does not save the run from another node’s failure', async () => {
    const run = await waitForRun(serve, await startRun(serve, 'tolerant-then-fail', { message: '', cwd: project }));
    expect(run.status).toBe('failed');
    expect(run.error).toBe('test: exited with code 2');
    expect(run.nodes.lint).toMatchObject({ status: 'failed', tolerated: true });
  });

  it('is refused on an approval node, and must be a boolean', async () => {
    const answer = await api(serve, 'POST', '/api/workflows/validate', {
      definition: {
        name: 'x',
        description: 'x',
        nodes: [
          { id: 'gate', approval: { message: 'ok?' }, continue_on_error: true },
          { id: 'b', bash: 'true', continue_on_error: 'yes' },
        ],
      },
    });
    expect(answer.body.valid).toBe(false);
    expect(answer.body.errors.join('\n')).toMatch(/nodes\[0\]\.continue_on_error: continue_on_error applies to a node that can fail/);
    expect(answer.body.errors.join('\n')).toMatch(/nodes\[1\]\.continue_on_error/);
  });
});
