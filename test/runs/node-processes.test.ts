// A node's processes do not outlive it: an executor failure stops the run's other nodes instead of
// leaving them unsupervised, and what a node leaves running in its process group ends with it.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { cleanupAll, getRun, projectWithWorkflows, readPidFile, startRun, startServer, waitForDeath, waitForStatus } from '../helpers/runs.js';

let server: TestServer;
let cwd: string;

beforeAll(async () => {
  cwd = await projectWithWorkflows([
    {
      name: 'broken-artifact',
      nodes: [
        // Occupies the path of its own output file: writing the output fails inside the executor.
        // It waits for `slow` to be under way first, or on a loaded machine the failure could stop
        // `slow` before it noted its pid, and the test would wait for a file that never comes.
        { id: 'fast', bash: 'while [ ! -s "$ARTIFACTS_DIR/slow.pid" ]; do sleep 0.05; done; mkdir "$ARTIFACTS_DIR/fast.out"; echo hi' },
        { id: 'slow', bash: 'sleep 60 & echo $! > "$ARTIFACTS_DIR/slow.pid"; wait' },
      ],
    },
    { name: 'leaves-daemon', nodes: [{ id: 'start', bash: 'sleep 77 & echo $! > "$ARTIFACTS_DIR/bg.pid"; echo started' }] },
  ]);
  server = await startServer();
});
afterAll(cleanupAll);

const artifact = (runId: string, name: string) => join(server.home, 'data', 'runs', runId, 'artifacts', name);

describe('processes', () => {
  it("an executor failure stops the run's other nodes instead of leaving them unsupervised", async () => {
    const id = await startRun(server, 'broken-artifact', { message: '', cwd });
    const sleeper = await readPidFile(artifact(id, 'slow.pid'));
    const run = await waitForStatus(server, id, 'failed');
    await waitForDeath(sleeper);
    const after = await getRun(server, id);
    const lastType = after.events.at(-1).type;
    expect(lastType).toBe('run_failed');
    expect(after.nodes.slow.status).not.toBe('completed');
    expect(run.error).toBeTruthy();
  });

  it('what a node leaves running in its process group ends with the node', async () => {
    const id = await startRun(server, 'leaves-daemon', { message: '', cwd });
    const bg = await readPidFile(artifact(id, 'bg.pid'));
    const run = await waitForStatus(server, id, 'completed');
    expect(run.nodes.start.output).toBe('started');
    await waitForDeath(bg);
  });
});
