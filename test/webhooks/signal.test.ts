// A webhook trigger that signals instead of starting a run (docs/decisions.md, "Waits and signals"):
// `signal: <event>` with `run_field: <payload field holding the run id>` — a CI system's "build
// finished" continues the run that pushed the branch. The signature, dedupe and delivery history
// apply unchanged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/error-body.js';
import { waitForRun } from '../helpers/runs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeProject, type Project } from '../helpers/workflow-project.js';
import { deliver, registerTriggers, SECRET, sign } from '../helpers/webhooks.js';

let server: TestServer;
let project: Project;

const WORKFLOW = [
  'name: pushes',
  'description: pushes a branch, then waits for its CI build',
  'nodes:',
  '  - id: push',
  '    bash: echo pushed',
  '  - id: build',
  '    wait: { event: build_finished }',
  '    depends_on: [push]',
  '  - id: report',
  `    bash: 'printf "ci: %s\\n" $build.output'`,
  '    depends_on: [build]',
  'triggers:',
  '  webhook:',
  '    - { event: build, slug: ci-finished, secret_env: CI_SECRET, idempotency_key: build_id, signal: build_finished, run_field: svc_run }',
].join('\n');

beforeAll(async () => {
  project = await makeProject();
  await project.write('pushes.yaml', WORKFLOW);
  server = await startTestServer({ env: { CI_SECRET: SECRET } });
  await registerTriggers(server, project.dir);
});

afterAll(async () => {
  await server.stop();
  await project.remove();
});

async function waitingRun(): Promise<string> {
  const started = await server.json('POST', '/api/workflows/pushes/run', { message: 'push', cwd: project.dir });
  expect(started.status).toBe(202);
  const runId: string = started.body.runId;
  await waitForRun(server, runId, (run) => run.status === 'waiting' && run.events.at(-1).type === 'run_waiting', 10_000);
  return runId;
}

describe('a signalling webhook trigger', () => {
  it('a signed delivery continues the waiting run its run_field names, with the exact body as the output; a redelivery is a duplicate', async () => {
    const runId = await waitingRun();
    const body = JSON.stringify({ event: 'build', build_id: 'b-1', svc_run: runId, status: 'success' });

    const unsigned = await deliver(server, 'ci-finished', body, { signature: sign(body, 'f'.repeat(64)) });
    expect(unsigned.status).toBe(401);
    expect((await server.json('GET', `/api/workflows/runs/${runId}`)).body.status).toBe('waiting');

    const answer = await deliver(server, 'ci-finished', body);
    expect(answer).toMatchObject({ status: 202, body: { accepted: true, run_id: runId, signalled: 'build_finished' } });
    const run = await server.ctx.engine.waitUntilSettled(runId);
    expect(run.status).toBe('completed');
    expect(run.nodes.build!.output).toBe(body);
    expect(run.nodes.report!.output).toBe(`ci: ${body}`);
    // Only the one run: the delivery started none.
    expect((await server.ctx.engine.list({ workflow: 'pushes' })).runs).toHaveLength(1);

    const again = await deliver(server, 'ci-finished', body);
    expect(again).toMatchObject({ status: 200, body: { skipped: 'duplicate', run_id: runId } });

    const history = await server.json('GET', '/api/webhooks/deliveries?slug=ci-finished');
    expect(history.body.deliveries.map((d: { outcome: string }) => d.outcome)).toEqual(['duplicate', 'accepted', 'invalid_signature']);
    expect(history.body.deliveries[1]).toMatchObject({ run_id: runId, key: 'b-1', workflow: 'pushes' });
  });

  it('a run nobody waits on is 409 not_waiting, an unknown run 404, a missing run field 400; each frees its key for a retry', async () => {
    const runId = await waitingRun();
    const missing = await deliver(server, 'ci-finished', JSON.stringify({ event: 'build', build_id: 'b-2' }));
    expect(missing.status).toBe(400);
    expectErrorBody(missing.body, 'invalid_run_field');
    const unknown = await deliver(server, 'ci-finished', JSON.stringify({ event: 'build', build_id: 'b-3', svc_run: 'run_nosuchrun000' }));
    expect(unknown.status).toBe(404);
    expectErrorBody(unknown.body, 'run_not_found');

    await server.json('POST', `/api/workflows/runs/${runId}/cancel`);
    const body = JSON.stringify({ event: 'build', build_id: 'b-4', svc_run: runId });
    const late = await deliver(server, 'ci-finished', body);
    expect(late.status).toBe(409);
    expectErrorBody(late.body, 'not_waiting');
    // Not remembered as delivered: the same key is refused again for the same reason, not called a duplicate.
    expect((await deliver(server, 'ci-finished', body)).status).toBe(409);
    const history = await server.json('GET', '/api/webhooks/deliveries?slug=ci-finished&limit=4');
    expect(history.body.deliveries.map((d: { outcome: string }) => d.outcome)).toEqual(['not_waiting', 'not_waiting', 'run_not_found', 'invalid_run_field']);
  });

  it('signal without run_field is a validation error naming both', async () => {
    const answer = await server.json('POST', '/api/workflows/validate', {
      definition: WORKFLOW.replace(', run_field: svc_run', ''),
    });
    expect(answer.body.valid).toBe(false);
    expect(answer.body.errors.join('\n')).toMatch(/triggers\.webhook\[0\]\.signal: signal needs run_field/);
  });
});
