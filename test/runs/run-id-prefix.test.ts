// Short run ids (docs/contract.md, "HTTP"): `run_` starts every id, so it tells no run apart.
// Counted as a 4-character prefix, `DELETE /api/workflows/runs/run_` deleted the only stored run;
// the characters after `run_` are what count, through the API and through the CLI alike.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { expectErrorBody } from '../helpers/error-body.js';
import { closedPort } from '../helpers/serve-process.js';
import { makeHome, startTestServer, type TestServer } from '../helpers/server.js';
import { makeProject, type Project } from '../helpers/workflow-project.js';

let project: Project;
beforeAll(async () => {
  project = await makeProject();
  await project.write('ok.yaml', 'name: ok\ndescription: succeeds\nnodes:\n  - id: greet\n    bash: echo hello\n');
});
afterAll(() => project.remove());

describe.each([
  { mode: 'in process (no server)', withServer: false },
  { mode: 'through a server', withServer: true },
])('a prefix of `run_` and fewer than 4 more characters, $mode', ({ withServer }) => {
  let home: string;
  let server: TestServer | undefined;
  let env: Record<string, string>;
  let runId: string;
  beforeAll(async () => {
    home = await makeHome();
    if (withServer) {
      server = await startTestServer({ socket: true, home, cwd: project.dir });
      env = { SVC_HOME: home, SVC_URL: server.url };
    } else {
      env = { SVC_HOME: home, PORT: String(await closedPort()) };
    }
    const ran = await runSvcInProcess(['run', 'ok', '--wait', '--cwd', project.dir], env);
    expect(ran.code, ran.stderr).toBe(0);
    runId = /run_\S+/.exec(ran.stdout)![0];
  });
  afterAll(async () => {
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });
  const svc = (args: string[]) => runSvcInProcess(args, env);
  const storedIds = async () => JSON.parse((await svc(['runs', '--json'])).stdout).runs.map((run: { id: string }) => run.id);

  it.each(['run_', 'run_m', 'run_mi2'])('svc delete and svc runs show of %s name no run: exit 1, the run stays', async (short) => {
    const deleted = await svc(['delete', short]);
    expect(deleted.code).toBe(1);
    expect(deleted.stderr).toContain(`No run '${short}'. A short id needs at least 4 characters after 'run_'.`);
    expect((await svc(['runs', 'show', short])).code).toBe(1);
    expect(await storedIds()).toEqual([runId]);
  });

  if (withServer)
    it('DELETE and GET /api/workflows/runs/run_ answer 404 run_not_found and the run stays', async () => {
      for (const method of ['DELETE', 'GET']) {
        const answer = await server!.json(method, '/api/workflows/runs/run_');
        expect(answer.status).toBe(404);
        expectErrorBody(answer.body, 'run_not_found');
      }
      expect((await server!.json('GET', `/api/workflows/runs/${runId}`)).status).toBe(200);
    });

  it('four characters after `run_` are a prefix', async () => {
    const shown = await svc(['runs', 'show', runId.slice(0, 'run_'.length + 4), '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).id).toBe(runId);
  });
});
