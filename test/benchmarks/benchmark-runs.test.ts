// The summary index on real runs: a run is measured when it ends, a resumed run counts once, a
// deleted run leaves the benchmark, and runs ended before a restart are indexed from their records.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api, cleanupAll, projectWithWorkflows, startRun, startServer, tempDir, waitForStatus } from '../helpers/runs.js';

afterAll(cleanupAll);

describe('benchmarks of executed runs', () => {
  it('counts a resumed run once, keeps its first pass node once, and follows deletion and restarts', async () => {
    const marks = await tempDir();
    const mark = join(marks, 'ok');
    const project = await projectWithWorkflows([
      {
        name: 'flaky',
        nodes: [
          { id: 'first', bash: 'echo one' },
          { id: 'second', bash: `test -f ${mark}`, depends_on: ['first'] },
          { id: 'never', bash: 'echo never', depends_on: ['first'], when: "$first.output == 'nope'" },
        ],
      },
    ]);
    const home = await tempDir('svc-home-');
    let server = await startServer({ home });
    const bench = async () => (await api(server, 'GET', '/api/runs/benchmark?workflow=flaky')).body;

    const id = await startRun(server, 'flaky', { message: 'go', conversationId: 'conv-flaky', cwd: project });
    await waitForStatus(server, id, 'failed');
    const failed = await bench();
    expect(failed.summary.runs).toBe(1);
    expect(failed.nodes.map((n: any) => [n.stepName, n.totalRuns])).toEqual([
      ['first', 1],
      ['second', 1],
    ]);

    await writeFile(mark, '');
    expect((await api(server, 'POST', `/api/workflows/runs/${id}/resume`)).status).toBe(200);
    expect(await startRun(server, 'flaky', { message: 'go', conversationId: 'conv-flaky', cwd: project })).toBe(id);
    await waitForStatus(server, id, 'completed');
    const resumed = await bench();
    expect(resumed.summary.runs).toBe(1);
    expect(resumed.nodes.map((n: any) => [n.stepName, n.totalRuns])).toEqual([
      ['first', 1],
      ['second', 1],
    ]);

    const other = await startRun(server, 'flaky', { message: 'again', cwd: project });
    await waitForStatus(server, other, 'completed');
    expect((await bench()).summary.runs).toBe(2);

    // Restarted: the index is built again from the records.
    await server.stop({ keepHome: true });
    server = await startServer({ home });
    expect((await bench()).summary.runs).toBe(2);
    expect((await api(server, 'GET', '/api/runs/benchmark/workflows')).body).toEqual({ workflows: ['flaky'] });

    expect((await api(server, 'DELETE', `/api/workflows/runs/${other}`)).status).toBe(200);
    expect((await bench()).summary.runs).toBe(1);
  }, 60_000);
});
