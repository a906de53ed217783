// Commands driven in process with testIO(), through both of the client's transports: HTTP to a
// real server, and the server's routes called in this process on the store (no server). The
// same command must print the same thing and exit the same way either way.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { closedPort } from '../helpers/serve-process.js';
import { makeHome, startTestServer, type TestServer } from '../helpers/server.js';
import { makeProject, type Project } from '../helpers/workflow-project.js';

let project: Project;
beforeAll(async () => {
  project = await makeProject();
  await project.write('ok.yaml', 'name: ok\ndescription: succeeds\nnodes:\n  - id: greet\n    bash: echo "hello $ARGUMENTS"\n');
});
afterAll(() => project.remove());

const flaky = (flag: string) => `name: flaky
description: fails until a flag exists
nodes:
  - id: check
    bash: test -f "${flag}"
`;

describe.each([
  { mode: 'in process (no server)', server: false },
  { mode: 'through a server', server: true },
])('$mode', ({ server: withServer }) => {
  let home: string;
  let server: TestServer | undefined;
  let env: Record<string, string>;
  beforeAll(async () => {
    home = await makeHome();
    if (withServer) {
      server = await startTestServer({ socket: true, home, cwd: project.dir });
      env = { SVC_HOME: home, SVC_URL: server.url };
    } else {
      env = { SVC_HOME: home, PORT: String(await closedPort()) };
    }
  });
  afterAll(async () => {
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });
  const svc = (args: string[]) => runSvcInProcess(args, env);

  it('runs list --json on an empty store: one JSON document, exit 0', async () => {
    const result = await svc(['runs', 'list', '--json']);
    expect(result).toEqual({ code: 0, stdout: '{"runs":[],"total":0}\n', stderr: '' });
  });

  it('run --wait, then runs --json lists it; cancel on the finished run exits 1 with the 409 message', async () => {
    const ran = await svc(['run', 'ok', 'there', '--wait', '--cwd', project.dir]);
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^completed ok (run_\S+) in /);
    const runId = /run_\S+/.exec(ran.stdout)![0];

    const listed = JSON.parse((await svc(['runs', '--json'])).stdout);
    expect(listed.runs.map((run: { id: string; status: string }) => [run.id, run.status])).toEqual([[runId, 'completed']]);

    const cancelled = await svc(['cancel', runId]);
    expect(cancelled.code).toBe(1);
    expect(cancelled.stdout).toBe('');
    // The 409 invalid_run_state answer's message, on one line.
    expect(cancelled.stderr).toMatch(/^svc: Cannot cancel a run that is completed\b[^\n]*\n$/);
  });

  it("a bad filter is a usage error (exit 2) with the route's message", async () => {
    const result = await svc(['runs', '--status', 'bogus']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('svc: unknown status bogus; use pending, running, paused, waiting, completed, failed, cancelled, abandoned\n');
  });

  it('resume carries a failed run on to its end, under the same id (in this process when no server runs)', async () => {
    const flag = join(home, 'flag');
    await project.write('flaky.yaml', flaky(flag));
    const failed = await svc(['run', 'flaky', '--json', '--cwd', project.dir]);
    expect(failed.code).toBe(1);
    const { id } = JSON.parse(failed.stdout);
    await writeFile(flag, '');
    const resumed = await svc(['resume', id, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ id, status: 'completed' });
  });

  it('an unknown run is the same 404 message either way', async () => {
    const result = await svc(['runs', 'show', 'run_nope']);
    expect(result).toEqual({ code: 1, stdout: '', stderr: "svc: No run 'run_nope'.\n" });
  });
});
