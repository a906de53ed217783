// The API's run responses match the domain's run schemas (src/runs/model/schemas.ts) exactly: every
// member the server sends is in the schema (strict), and every member the schema requires is sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunDetailSchema, RunViewSchema } from '../../src/runs/model/schemas.js';
import type { TestServer } from '../helpers/server.js';
import { api, cleanupAll, projectWithWorkflows, startRun, startServer, waitForStatus } from '../helpers/runs.js';

let server: TestServer;
let project: string;

beforeAll(async () => {
  project = await projectWithWorkflows([
    {
      name: 'shapes',
      nodes: [
        { id: 'say', bash: 'echo hello' },
        { id: 'never', bash: 'echo no', when: "$say.output == 'bye'", depends_on: ['say'] },
        { id: 'gate', approval: { message: 'Go?' }, depends_on: ['say'] },
      ],
    },
  ]);
  server = await startServer();
});
afterAll(cleanupAll);

describe('run responses', () => {
  it('list, detail, by-worker and operations answer the run schemas', async () => {
    const runId = await startRun(server, 'shapes', { message: 'm', cwd: project });
    const paused = await waitForStatus(server, runId, 'paused');
    expect(() => RunDetailSchema.strict().parse(paused)).not.toThrow();
    expect(paused.nodes.never.reason).toMatch(/when/);

    const list = await api(server, 'GET', '/api/workflows/runs');
    for (const run of list.body.runs) RunViewSchema.strict().parse(run);

    const byWorker = await api(server, 'GET', `/api/workflows/runs/by-worker/${paused.platformId}`);
    RunViewSchema.strict().parse(byWorker.body);

    const rejected = await api(server, 'POST', `/api/workflows/runs/${runId}/reject`, { reason: 'no' });
    expect(rejected.status).toBe(200);
    expect(RunViewSchema.strict().parse(rejected.body)).toMatchObject({ status: 'cancelled', rejectReason: 'no' });
  });
});
