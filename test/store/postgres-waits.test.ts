// Durable waits with several real `svc serve` processes on one PostgreSQL database (docs/decisions.md, "Waits and signals"): every server keeps a timer for the runs' wake-up times, and a due wait is
// claimed by a change of state written only over `waiting`, so each wait ends once and its run goes
// on on one server; a wait another server's run reached is seen too, and a run waiting on a server
// killed outright continues on another.
import { afterEach, expect, it } from 'vitest';
import { killAllServes, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { cleanupAll, eventTypes, getRun, type Json, projectWithWorkflows, startRun, tempDir, waitForRun, waitForStatus } from '../helpers/runs.js';
import { usePostgres } from '../support/postgres.js';

const postgres = usePostgres();
afterEach(async () => {
  await killAllServes();
  await cleanupAll();
});

const LEASE_MS = 1500;

const servers = (url: string, count: number, cwd: string): Promise<ServeProcess[]> =>
  Promise.all(
    Array.from({ length: count }, async () =>
      spawnServe({ home: await tempDir('svc-pg-home-'), cwd, env: { SVC_DATABASE_URL: url, SVC_RUN_LEASE_MS: String(LEASE_MS) } }),
    ),
  );

const isWaiting = (run: Json) => run.status === 'waiting' && eventTypes(run).at(-1) === 'run_waiting';

it('3 servers: 6 runs waiting 2s each wake once and complete once; the server that started them is killed during the wait', async () => {
  const url = await postgres.createDatabase();
  const project = await projectWithWorkflows([
    {
      name: 'nap',
      nodes: [
        { id: 'before', bash: 'echo before' },
        { id: 'nap', wait: { for: 2 }, depends_on: ['before'] },
        { id: 'after', bash: 'echo after', depends_on: ['nap'] },
      ],
    },
  ]);
  const [first, ...others] = await servers(url, 3, project);
  const ids = await Promise.all(Array.from({ length: 6 }, (_, i) => startRun(first!, 'nap', { message: `nap ${i}` })));
  for (const id of ids) await waitForRun(first!, id, isWaiting, 10_000);
  // The server the runs executed on is gone: the others keep the wake-ups they never made.
  await first!.stop('SIGKILL');
  for (const id of ids) {
    const run = await waitForStatus(others[0]!, id, 'completed', 20_000);
    const types = eventTypes(run);
    expect(types.filter((t) => t === 'run_woken')).toHaveLength(1);
    expect(types.filter((t) => t === 'run_completed')).toHaveLength(1);
    expect(run.events.filter((e: Json) => e.type === 'node_started').map((e: Json) => e.nodeId)).toEqual(['before', 'after']);
    expect(run.events.map((e: Json) => e.seq)).toEqual(run.events.map((_: Json, i: number) => i + 1));
    expect(run.nodes.after.output).toBe('after');
    expect((await getRun(others[1]!, id)).status).toBe('completed');
  }
}, 60_000);
