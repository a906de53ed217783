// kill -9 of the server while a sandboxed bash node runs (docs/decisions.md, "Bash nodes in a
// sandbox"), with the real built server: the sandbox's processes die with it (bubblewrap is started
// with --die-with-parent, its parent being the server), where an unsandboxed node's outlive it
// until the next server stops them (recovery.test.ts); the empty placeholder files the
// sandbox mounted in the run's directory (the one the server was started in) are removed then,
// and the checkout is left as it was.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { git } from '../helpers/git.js';
import { gitProject } from '../helpers/registered-project.js';
import { cleanupAll, getRun, startRun, tempDir, waitFor } from '../helpers/runs.js';
import { killAllServes, spawnServe } from '../helpers/serve-process.js';

const MARK = '3171.25';

/** The host's pids of processes whose command line holds `MARK` (the sandbox has a pid namespace of its own). */
function marked(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(MARK);
      } catch {
        return false;
      }
    })
    .map(Number);
}

afterEach(async () => {
  await killAllServes();
  for (const pid of marked()) process.kill(pid, 'SIGKILL');
});
afterAll(cleanupAll);

it("a sandboxed node's processes die with the server, and the next server removes the sandbox's placeholders", async () => {
  const home = await tempDir('svc-home-');
  const project = await gitProject([{ name: 'held', nodes: [{ id: 'b', sandbox: true, bash: `echo started > "$ARTIFACTS_DIR/started"; sleep ${MARK}` }] }]);
  git(project, 'add', '-A');
  git(project, 'commit', '-q', '-m', 'workflow');
  const first = await spawnServe({ home, cwd: project });
  const runId = await startRun(first, 'held', { message: '' });
  await waitFor(() => existsSync(join(home, 'data', 'runs', runId, 'artifacts', 'started')));
  const { cwd } = await getRun(first, runId);
  expect(cwd).toBe(project);
  // While it runs, the sandbox has mounted empty files in the directory, which git sees.
  expect(statSync(join(cwd, '.bashrc')).size).toBe(0);
  expect(git(cwd, 'status', '--porcelain')).toContain('.bashrc');
  expect(marked().length).toBeGreaterThan(0);

  expect(await first.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
  await waitFor(
    () => marked().length === 0,
    15_000,
    () => `for the sandboxed sleep to end: ${marked().join(' ')}`,
  );
  // What the crash left: the placeholders, until the next server recovers the run.
  expect(existsSync(join(cwd, '.bashrc'))).toBe(true);

  const second = await spawnServe({ home, cwd: project });
  const run = await getRun(second, runId);
  expect(run).toMatchObject({ status: 'failed', errorCode: 'interrupted' });
  expect(run.nodes.b).toMatchObject({ sandbox: 'on' });
  expect(existsSync(join(cwd, '.bashrc'))).toBe(false);
  expect(git(cwd, 'status', '--porcelain')).toBe('');
  await second.stop();
}, 90_000);
