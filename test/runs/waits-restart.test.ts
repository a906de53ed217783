// A durable wait survives a `kill -9` of the real `svc serve` (the built binary): its wake-up time is
// on the run's record, so the next server on the same SVC_HOME continues the run — one that came
// due while no server ran at start-up, a later one when its time comes — and never runs again the
// nodes before the wait.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import {
  cleanupAll,
  eventTypes,
  getRun,
  type Json,
  onCleanup,
  projectWithWorkflows,
  startRun,
  tempDir,
  waitFor,
  waitForRun,
  waitForStatus,
} from '../helpers/runs.js';
import { spawnServe } from '../helpers/serve-process.js';

afterAll(cleanupAll);

const napping = (name: string, seconds: number) => ({
  name,
  nodes: [
    { id: 'before', bash: 'echo ran >> "$ARTIFACTS_DIR/before-count.txt"; echo before-output' },
    { id: 'nap', wait: { for: seconds }, depends_on: ['before'] },
    { id: 'after', bash: 'echo "after $before.output"', depends_on: ['nap'] },
  ],
});

const isWaiting = (run: Json) => run.status === 'waiting' && eventTypes(run).at(-1) === 'run_waiting';

it('continues waiting runs after a kill -9: one due while no server ran, at start-up; a later one on its time', async () => {
  const home = await tempDir('svc-home-');
  const project = await projectWithWorkflows([napping('short-nap', 1), napping('long-nap', 6)]);
  const first = await spawnServe({ home, cwd: project, env: { SVC_MAX_CONCURRENT_RUNS: '1' } });
  onCleanup(() => first.stop('SIGKILL'));
  const shortId = await startRun(first, 'short-nap', { message: 'short' });
  const longId = await startRun(first, 'long-nap', { message: 'long' });
  const shortWaiting = await waitForRun(first, shortId, isWaiting);
  const long = await waitForRun(first, longId, isWaiting);

  expect(await first.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
  // The short wait comes due while no server runs (a wall-clock time: the server has no clock to inject).
  await waitFor(
    () => Date.now() > Date.parse(shortWaiting.wakeAt),
    10_000,
    () => `for ${shortWaiting.wakeAt} to pass`,
  );
  const second = await spawnServe({ home, cwd: project, env: { SVC_MAX_CONCURRENT_RUNS: '1' } });
  onCleanup(() => second.stop('SIGKILL'));
  try {
    const short = await waitForStatus(second, shortId, 'completed');
    expect(short.nodes.after.output).toBe('after before-output');
    // Still waiting when the short one completed: its time had not come.
    expect(Date.parse(short.finishedAt)).toBeLessThan(Date.parse(long.wakeAt));
    expect((await getRun(second, longId)).status).toBe('waiting');

    const done = await waitForStatus(second, longId, 'completed', 30_000);
    expect(Date.parse(done.nodes.nap.finishedAt)).toBeGreaterThanOrEqual(Date.parse(long.wakeAt));
    for (const run of [short, done]) {
      expect(run.nodes.nap).toMatchObject({ status: 'completed', output: '' });
      expect(run.events.map((e: Json) => e.seq)).toEqual(run.events.map((_: Json, i: number) => i + 1));
      expect(readFileSync(join(home, 'data', 'runs', run.id, 'artifacts', 'before-count.txt'), 'utf8')).toBe('ran\n');
    }
  } finally {
    await second.stop();
  }
}, 60_000);
