// Stop races: an abandon while a cancel is still stopping the run answers 409 with the final state.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { api, cleanupAll, projectWithWorkflows, readPidFile, startRun, startServer } from '../helpers/runs.js';

let server: TestServer;
let cwd: string;

beforeAll(async () => {
  cwd = await projectWithWorkflows([
    { name: 'stubborn', nodes: [{ id: 'hold', bash: 'trap \'\' TERM; sleep 30 & echo $! > "$ARTIFACTS_DIR/hold.pid"; wait; wait' }] },
  ]);
  server = await startServer();
});
afterAll(cleanupAll);

const artifact = (runId: string, name: string) => join(server.home, 'data', 'runs', runId, 'artifacts', name);

describe('stop races', () => {
  it('abandon while a cancel is still stopping the run answers 409 with the final state', async () => {
    const id = await startRun(server, 'stubborn', { message: '', cwd });
    await readPidFile(artifact(id, 'hold.pid'));
    const cancel = api(server, 'POST', `/api/workflows/runs/${id}/cancel`);
    // Nothing outside shows a stop under way (the node ignores SIGTERM, and the engine writes nothing
    // until it ends): a moment for the cancel to arrive, well inside the 5 s before its SIGKILL.
    await new Promise((r) => setTimeout(r, 300));
    const abandon = await api(server, 'POST', `/api/workflows/runs/${id}/abandon`);
    expect((await cancel).status).toBe(200);
    expect(abandon.status).toBe(409);
    expect(abandon.body).toMatchObject({ error: 'invalid_run_state', details: { status: 'cancelled' } });
  }, 30_000);
});
