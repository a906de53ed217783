// DAG execution with real bash: parallel branches, the ready queue, failure isolation, `when`,
// every trigger_rule, retry and timeout.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { cleanupAll, type Json, killQuietly, projectWithWorkflows, startRun, startServer, waitForDeath, waitForRun } from '../helpers/runs.js';

let server: TestServer;
let project: string;

const window = (node: Json) => ({ start: Date.parse(node.startedAt), end: Date.parse(node.finishedAt) });
/** Until a file exists (bounded by the node's timeout): a rendezvous that needs no wall-clock guess. */
const awaitFile = (name: string) => `while [ ! -e ${name} ]; do sleep 0.02; done`;

beforeAll(async () => {
  project = await projectWithWorkflows([
    {
      name: 'parallel',
      nodes: [
        { id: 'left', bash: 'sleep 1; date +%s%N' },
        { id: 'right', bash: 'sleep 1; date +%s%N' },
        { id: 'join', bash: 'echo $left.output $right.output', depends_on: ['left', 'right'] },
      ],
    },
    {
      // `slow` cannot finish before `fastChild` has run: if fastChild waited for its slow sibling
      // (layer-by-layer execution) the run would time out instead of completing.
      name: 'ready-queue',
      nodes: [
        { id: 'fast', bash: 'echo fast' },
        { id: 'fastChild', bash: 'touch "$ARTIFACTS_DIR/fast-child.done"; echo child', depends_on: ['fast'] },
        { id: 'slow', bash: `cd "$ARTIFACTS_DIR" && ${awaitFile('fast-child.done')}; echo slow`, timeout: '20s' },
        { id: 'after', bash: 'echo after', depends_on: ['slow', 'fastChild'] },
      ],
    },
    {
      // Many branches ending at about the same moment: some end while the scheduler is busy
      // (saving the record), and their dependents must still be started afterwards.
      // `lonely` has no dependents; `parent` ends at about the same moment as it.
      name: 'near-tie',
      nodes: [
        { id: 'lonely', bash: 'echo lonely' },
        { id: 'parent', bash: 'echo parent' },
        { id: 'child', bash: 'echo child', depends_on: ['parent'] },
      ],
    },
    {
      name: 'isolation',
      nodes: [
        { id: 'bad', bash: 'echo about to fail; exit 7' },
        { id: 'badChild', bash: 'echo never', depends_on: ['bad'] },
        { id: 'badGrandchild', bash: 'echo never', depends_on: ['badChild'] },
        { id: 'good', bash: 'sleep 0.3; echo good' },
        { id: 'goodChild', bash: 'echo $good.output-child', depends_on: ['good'] },
      ],
    },
    {
      name: 'conditions',
      nodes: [
        { id: 'check', bash: 'echo yes' },
        { id: 'onYes', bash: 'echo ran', depends_on: ['check'], when: "$check.output == 'yes'" },
        { id: 'onNo', bash: 'echo ran', depends_on: ['check'], when: "$check.output == 'no'" },
        { id: 'afterNo', bash: 'echo ran', depends_on: ['onNo'] },
      ],
    },
    {
      name: 'rules',
      nodes: [
        { id: 'ok', bash: 'echo ok' },
        { id: 'ok2', bash: 'echo ok2' },
        { id: 'bad', bash: 'exit 1' },
        { id: 'bad2', bash: 'exit 1' },
        { id: 'skipme', bash: 'echo never', depends_on: ['ok'], when: "$ok.output == 'nope'" },
        { id: 'as_ok', bash: 'echo ran', depends_on: ['ok', 'ok2'], trigger_rule: 'all_success' },
        { id: 'as_failed', bash: 'echo ran', depends_on: ['ok', 'bad'], trigger_rule: 'all_success' },
        { id: 'as_skipped', bash: 'echo ran', depends_on: ['ok', 'skipme'] },
        { id: 'os_mixed', bash: 'echo ran', depends_on: ['ok', 'bad'], trigger_rule: 'one_success' },
        { id: 'os_none', bash: 'echo ran', depends_on: ['bad', 'bad2'], trigger_rule: 'one_success' },
        { id: 'ad_mixed', bash: 'echo ran', depends_on: ['ok', 'bad'], trigger_rule: 'all_done' },
        { id: 'ad_failed', bash: 'echo ran', depends_on: ['bad', 'bad2'], trigger_rule: 'all_done' },
        { id: 'nf_failed', bash: 'echo ran', depends_on: ['ok', 'bad'], trigger_rule: 'none_failed_min_one_success' },
        { id: 'nf_skipped', bash: 'echo ran', depends_on: ['ok', 'skipme'], trigger_rule: 'none_failed_min_one_success' },
        { id: 'nf_only_skipped', bash: 'echo ran', depends_on: ['skipme'], trigger_rule: 'none_failed_min_one_success' },
      ],
    },
    {
      name: 'retry',
      nodes: [
        {
          id: 'flaky',
          // A number read from the run's files is checked before arithmetic (docs/workflows.md, "Values from outside in bash").
          bash: 'n=$(cat "$ARTIFACTS_DIR/count" 2>/dev/null || echo 0); [[ $n =~ ^[0-9]+$ ]] || exit 2; n=$((n + 1)); echo $n > "$ARTIFACTS_DIR/count"; if [ $n -lt 2 ]; then echo "attempt $n fails" >&2; exit 1; fi; echo "ok on attempt $n"',
          retry: { max_attempts: 2, delay: '100ms' },
        },
      ],
    },
    {
      name: 'retry-exhausted',
      nodes: [{ id: 'hopeless', bash: 'echo x >> "$ARTIFACTS_DIR/count"; exit 1', retry: { max_attempts: 3 } }],
    },
    {
      name: 'timeout',
      nodes: [
        { id: 'sleepy', bash: 'sleep 30 & echo $! > "$ARTIFACTS_DIR/sleep.pid"; wait', timeout: '1s' },
        { id: 'sibling', bash: 'echo fine' },
      ],
    },
  ]);
  server = await startServer();
});
afterAll(cleanupAll);

describe('execution order', () => {
  it('runs independent branches in parallel: their [start, end] windows overlap', async () => {
    const runId = await startRun(server, 'parallel', { message: '', cwd: project });
    const run = await waitForRun(server, runId);
    expect(run.status).toBe('completed');
    const left = window(run.nodes.left);
    const right = window(run.nodes.right);
    // Sequential execution would give one window entirely before the other.
    expect(left.start).toBeLessThan(right.end);
    expect(right.start).toBeLessThan(left.end);
    // The join waits for both and sees both printed stamps.
    const join = run.nodes.join;
    expect(join.output).toBe(`${run.nodes.left.output} ${run.nodes.right.output}`);
    expect(Date.parse(join.startedAt)).toBeGreaterThanOrEqual(Math.max(left.end, right.end));
  });

  it('starts a node as soon as its own dependencies finish (a ready queue, not layers)', async () => {
    const runId = await startRun(server, 'ready-queue', { message: '', cwd: project });
    const run = await waitForRun(server, runId);
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    const fastChild = window(run.nodes.fastChild);
    const slow = window(run.nodes.slow);
    // fastChild started while its slow cousin was still running (which could not end before).
    expect(fastChild.start).toBeLessThan(slow.end);
    expect(Date.parse(run.nodes.after.startedAt)).toBeGreaterThanOrEqual(slow.end);
  });

  it('starts every dependent even when dependencies end while the scheduler is busy', async () => {
    // When `lonely` ends first, `parent` often ends while the scheduler is still busy after it
    // (saving the record); `child` must still start although nothing else is running then.
    for (let round = 0; round < 4; round++) {
      const ids = await Promise.all(Array.from({ length: 8 }, () => startRun(server, 'near-tie', { message: '', cwd: project })));
      for (const id of ids) {
        const run = await waitForRun(server, id, undefined, 60_000);
        expect(run.status, JSON.stringify({ error: run.error })).toBe('completed');
        expect(run.nodes.child.output).toBe('child');
      }
    }
  }, 120_000);
});

describe('failure isolation', () => {
  it('a failed node fails no sibling; its descendants are skipped with a reason; the run ends failed', async () => {
    const runId = await startRun(server, 'isolation', { message: '', cwd: project });
    const run = await waitForRun(server, runId);
    expect(run.status).toBe('failed');
    expect(run.nodes.bad).toMatchObject({ status: 'failed', error: expect.stringContaining('7') });
    expect(run.nodes.good).toMatchObject({ status: 'completed', output: 'good' });
    expect(run.nodes.goodChild).toMatchObject({ status: 'completed', output: 'good-child' });
    expect(run.nodes.badChild.status).toBe('skipped');
    expect(run.nodes.badChild.reason).toMatch(/bad/);
    expect(run.nodes.badGrandchild.status).toBe('skipped');
    expect(run.nodes.badGrandchild.reason).toMatch(/badChild/);
    const skipped = run.events.filter((e: Json) => e.type === 'node_skipped');
    expect(skipped.map((e: Json) => e.nodeId).sort()).toEqual(['badChild', 'badGrandchild']);
    for (const event of skipped) expect(event.reason).toEqual(expect.any(String));
    const failed = run.events.find((e: Json) => e.type === 'node_failed');
    expect(failed).toMatchObject({ nodeId: 'bad', error: expect.any(String) });
    expect(run.events.at(-1)).toMatchObject({ type: 'run_failed' });
  });
});

describe('when', () => {
  it('runs a node whose condition is true and skips one whose condition is false', async () => {
    const runId = await startRun(server, 'conditions', { message: '', cwd: project });
    const run = await waitForRun(server, runId);
    expect(run.status).toBe('completed');
    expect(run.nodes.onYes).toMatchObject({ status: 'completed', output: 'ran' });
    expect(run.nodes.onNo.status).toBe('skipped');
    expect(run.nodes.onNo.reason).toMatch(/when/);
    // all_success (the default) skips what depends on a skipped node.
    expect(run.nodes.afterNo.status).toBe('skipped');
  });
});

describe('trigger_rule', () => {
  let run: Json;
  beforeAll(async () => {
    run = await waitForRun(server, await startRun(server, 'rules', { message: '', cwd: project }));
  });

  it.each([
    ['as_ok', 'all_success, all dependencies completed', 'completed'],
    ['as_failed', 'all_success, one dependency failed', 'skipped'],
    ['as_skipped', 'all_success (default), one dependency skipped', 'skipped'],
    ['os_mixed', 'one_success, one completed and one failed', 'completed'],
    ['os_none', 'one_success, all failed', 'skipped'],
    ['ad_mixed', 'all_done, one completed and one failed', 'completed'],
    ['ad_failed', 'all_done, all failed', 'completed'],
    ['nf_failed', 'none_failed_min_one_success, one failed', 'skipped'],
    ['nf_skipped', 'none_failed_min_one_success, one completed and one skipped', 'completed'],
    ['nf_only_skipped', 'none_failed_min_one_success, only skipped dependencies', 'skipped'],
  ])('%s (%s) → %s', (id, _label, status) => {
    expect(run.nodes[id].status).toBe(status);
    if (status === 'skipped') expect(run.nodes[id].reason).toMatch(/trigger_rule/);
    else expect(run.nodes[id].output).toBe('ran');
  });

  it('the run with failed nodes ends failed', () => {
    expect(run.status).toBe('failed');
    expect(run.nodes.skipme.status).toBe('skipped');
  });
});

describe('retry and timeout', () => {
  it('retries a node that fails once, then succeeds on its second attempt', async () => {
    const runId = await startRun(server, 'retry', { message: '', cwd: project });
    const run = await waitForRun(server, runId);
    expect(run.status).toBe('completed');
    expect(run.nodes.flaky).toMatchObject({ status: 'completed', attempts: 2, output: 'ok on attempt 2', error: null });
    const types = run.events.filter((e: Json) => e.nodeId === 'flaky').map((e: Json) => e.type);
    expect(types).not.toContain('node_failed');
    expect(types.filter((t: string) => t === 'node_completed')).toHaveLength(1);
    const stderr = run.events
      .filter((e: Json) => e.type === 'node_output' && e.stream === 'stderr')
      .map((e: Json) => e.text)
      .join('');
    expect(stderr).toContain('attempt 1 fails');
  });

  it('stops after max_attempts and fails the node', async () => {
    const runId = await startRun(server, 'retry-exhausted', { message: '', cwd: project });
    const run = await waitForRun(server, runId);
    expect(run.status).toBe('failed');
    expect(run.nodes.hopeless).toMatchObject({ status: 'failed', attempts: 3 });
    const artifacts = join(server.home, 'data', 'runs', runId, 'artifacts');
    expect(readFileSync(join(artifacts, 'count'), 'utf8').trim().split('\n')).toHaveLength(3);
  });

  it('fails a node that outlives its timeout, with a timeout error, and kills what it started', async () => {
    const runId = await startRun(server, 'timeout', { message: '', cwd: project });
    const pidFile = join(server.home, 'data', 'runs', runId, 'artifacts', 'sleep.pid');
    const run = await waitForRun(server, runId);
    expect(run.status).toBe('failed');
    expect(run.nodes.sleepy.status).toBe('failed');
    expect(run.nodes.sleepy.error).toMatch(/timed out after 1s/);
    expect(run.events.find((e: Json) => e.type === 'node_failed' && e.nodeId === 'sleepy')).toMatchObject({ code: 'timeout' });
    expect(run.nodes.sibling).toMatchObject({ status: 'completed', output: 'fine' });
    // (Only a machine too loaded to start bash within the second would not have written it.)
    if (existsSync(pidFile)) {
      const sleepPid = Number(readFileSync(pidFile, 'utf8'));
      await waitForDeath(sleepPid).catch((error: Error) => {
        killQuietly(sleepPid, 'sleep');
        throw error;
      });
    }
  });
});
