// `GET /api/schedules` and `svc schedule list` against the built server started in a project with
// a scheduled workflow: each schedule with its next firing.
import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { killAllServes, spawnServe } from '../helpers/serve-process.js';
import { makeHome } from '../helpers/server.js';
import { makeProject } from '../helpers/workflow-project.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await killAllServes();
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe('svc schedule list', () => {
  it('lists each schedule of the server’s workflows with its next firing', async () => {
    const project = await makeProject();
    cleanup.push(() => project.remove());
    await project.write(
      'nightly.yaml',
      [
        'name: nightly',
        'description: d',
        'nodes:',
        '  - id: a',
        '    bash: echo hi',
        'triggers:',
        '  schedule:',
        '    - { cron: "0 3 * * *", timezone: UTC }',
      ].join('\n'),
    );
    const home = await makeHome();
    cleanup.push(() => rm(home, { recursive: true, force: true }));
    const server = await spawnServe({ home, cwd: project.dir });
    const answer = await fetch(`${server.url}/api/schedules`);
    expect(answer.status).toBe(200);
    const { schedules } = (await answer.json()) as { schedules: Array<Record<string, unknown>> };
    expect(schedules).toHaveLength(1);
    expect(schedules[0]).toMatchObject({ workflow: 'nightly', cron: '0 3 * * *', timezone: 'UTC', overlap: 'skip', last_run_id: null });
    expect(schedules[0]!.next_at).toMatch(/T03:00:00\.000Z$/);
    const listed = await runCli(['--url', server.url, 'schedule', 'list'], { env: { SVC_HOME: home } });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^nightly\t0 3 \* \* \*\tUTC\tskip\t\S+T03:00:00\.000Z\t$/m);
    await server.stop();
  });
});
