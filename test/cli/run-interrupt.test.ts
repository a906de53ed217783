import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, SVC_BIN } from '../helpers/cli.js';
import { svcEnv } from '../helpers/serve-process.js';
import { readPidFile, waitFor } from '../helpers/runs.js';
import { makeHome } from '../helpers/server.js';
import { makeProject, type Project } from '../helpers/workflow-project.js';

/** Ctrl-C on a foreground `svc run` (no server) cancels the run cleanly, however often it is pressed. */
let project: Project;
beforeAll(async () => {
  project = await makeProject();
  await project.write(
    'stubborn.yaml',
    `name: stubborn
description: ignores SIGTERM in its shell
nodes:
  - id: hold
    bash: trap '' TERM; sleep 60 & echo $! > "$WORKSPACE_DIR/sleep.pid"; wait; wait
`,
  );
});
afterAll(() => project.remove());

const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/\) Z /.test(stat);
  } catch {
    return false;
  }
};

describe('svc run in the foreground', () => {
  it('two Ctrl-Cs: exit 3, the run cancelled, no process left, the store lock released', async () => {
    const home = await makeHome();
    const child = spawn(process.execPath, [SVC_BIN, 'run', 'stubborn'], {
      cwd: project.dir,
      env: svcEnv({ SVC_HOME: home, PORT: '1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const pidFile = join(project.dir, 'sleep.pid');
    const sleeper = await readPidFile(pidFile);
    child.kill('SIGINT');
    // The second Ctrl-C once the first has been taken (it says so), not a guess at how long that takes.
    await waitFor(
      () => stderr.includes('cancelling the run'),
      10_000,
      () => `for the first Ctrl-C to be taken; stderr: ${stderr}`,
    );
    child.kill('SIGINT');
    expect(await exited).toBe(3);
    expect(stderr).toContain('cancelling the run');
    expect(stderr).toContain('still stopping');
    await waitFor(() => !alive(sleeper), 5_000).catch(() => undefined);
    expect(alive(sleeper)).toBe(false);
    expect(existsSync(join(home, 'svc.lock'))).toBe(false);
    const runs = JSON.parse((await runCli(['runs', '--json'], { env: { SVC_HOME: home, PORT: '1' } })).stdout);
    expect(runs.runs[0]).toMatchObject({ workflow: 'stubborn', status: 'cancelled' });
  }, 40_000);
});
