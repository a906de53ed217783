// Offline, reads open the store read-only: they work while another CLI process holds the writer
// lock (a foreground `svc run` in another terminal); a write waits for no one and says why.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, SVC_BIN } from '../helpers/cli.js';
import { svcEnv } from '../helpers/serve-process.js';
import { makeHome } from '../helpers/server.js';
import { makeProject, type Project } from '../helpers/workflow-project.js';

let project: Project;
beforeAll(async () => {
  project = await makeProject();
  await project.write('slow.yaml', 'name: slow\ndescription: runs long\nnodes:\n  - id: wait\n    bash: sleep 30\n');
});
afterAll(() => project.remove());

describe('while a foreground svc run holds the store', () => {
  it('runs list and runs show read it; cancel is refused with the lock holder named; Ctrl-C ends the run', async () => {
    const home = await makeHome();
    const env = { SVC_HOME: home, PORT: '1' };
    const child = spawn(process.execPath, [SVC_BIN, 'run', 'slow'], { cwd: project.dir, env: svcEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let runs: Array<{ id: string; status: string }> = [];
    for (let i = 0; i < 100 && runs[0]?.status !== 'running'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const listed = await runCli(['runs', '--json'], { env });
      expect(listed.code, listed.stderr).toBe(0);
      runs = JSON.parse(listed.stdout).runs;
    }
    expect(existsSync(join(home, 'svc.lock'))).toBe(true);
    expect(runs[0]?.status).toBe('running');
    const shown = await runCli(['runs', 'show', runs[0]!.id, '--json'], { env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).status).toBe('running');

    const cancel = await runCli(['cancel', runs[0]!.id], { env });
    expect(cancel.code).toBe(1);
    expect(cancel.stderr).toMatch(/^svc: Another svc command \(pid \d+\) is writing the store/);

    child.kill('SIGINT');
    expect(await exited).toBe(3);
  }, 40_000);
});
