// Schedules of servers sharing one PostgreSQL database (docs/scaling.md): "missed while down" means
// no server was up. Two servers (real contexts opened as servers: claims, leases and heartbeats in
// svc_servers) on one throwaway cluster, each with a ScheduleService whose clock the test moves,
// wired as the server wires its own.
import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { closeContext, createContext, type AppContext } from '../../src/app/context.js';
import { scheduledWorkflows } from '../../src/schedules/index.js';
import { isTerminal } from '../../src/runs/model/types.js';
import { ScheduleService } from '../../src/schedules/index.js';
import { postgresScheduleRepository, postgresScheduleUptime } from '../../src/schedules/postgres-repository.js';
import { silentLogger } from '../../src/shared/logger.js';
import { loadSettings } from '../../src/shared/settings.js';
import { openPostgres } from '../../src/store/postgres/index.js';
import { waitFor } from '../helpers/runs.js';
import { makeHome } from '../helpers/server.js';
import { makeProject, type Project } from '../helpers/workflow-project.js';
import { usePostgres } from '../support/postgres.js';

const postgres = usePostgres();
const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const MINUTE = 60_000;
const T0 = Date.parse('2030-01-07T08:59:30Z');
const MINUTELY = [
  'name: minutely',
  'description: scheduled',
  'nodes:',
  '  - id: work',
  '    bash: "true"',
  'triggers:',
  '  schedule:',
  '    - { cron: "* * * * *" }',
];

interface Server {
  ctx: AppContext;
  schedules: ScheduleService;
  /** Closes the context: its lease is given up (svc_servers row removed), as `svc serve` does on SIGTERM. */
  stop(): Promise<void>;
}

async function setup(): Promise<{ url: string; project: Project; clock: { now: number } }> {
  const url = await postgres.createDatabase();
  const project = await makeProject();
  cleanup.push(() => project.remove());
  await project.write('minutely.yaml', MINUTELY.join('\n'));
  return { url, project, clock: { now: T0 } };
}

/** A server on the database; its schedules are ticked by the test at the clock's time, created now. */
async function startServer(url: string, project: Project, clock: { now: number }): Promise<Server> {
  const home = await makeHome();
  const ctx = await createContext({
    settings: loadSettings({ ...process.env, SVC_HOME: home, SVC_DATABASE_URL: url, SVC_LOG_LEVEL: 'warn' }),
    role: 'server',
  });
  // Its own ticking runs on the real clock: stopped before its first tick (a timer), the test's
  // service below takes its place.
  ctx.schedules.stop();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    for (const run of (await ctx.engine.list({ limit: 200 })).runs) if (!isTerminal(run.status)) await ctx.engine.cancel(run.id).catch(() => {});
    await closeContext(ctx);
  };
  cleanup.push(() => rm(home, { recursive: true, force: true }));
  cleanup.push(stop);
  const schedules = new ScheduleService({
    repository: postgresScheduleRepository(ctx.database!),
    upSince: postgresScheduleUptime(ctx.database!, ctx.engine.serverId!),
    logger: ctx.logger,
    scheduled: () => scheduledWorkflows(ctx.workflows, project.dir),
    startRun: (request) => ctx.engine.start({ ...request, trigger: 'schedule' }),
    runState: async (runId) => {
      const run = await ctx.engine.find(runId);
      return run ? { terminal: isTerminal(run.status) } : undefined;
    },
    now: () => clock.now,
  });
  return { ctx, schedules, stop };
}

const outcomes = async (server: Server) => (await server.schedules.tick()).map((o) => [o.outcome, o.dueAt]);

/** A run's final state, whichever server executes it (an engine waits only for its own runs). */
async function settled(server: Server, runId: string) {
  return waitFor(
    async () => {
      const run = await server.ctx.engine.find(runId);
      return run && isTerminal(run.status) ? run : undefined;
    },
    25_000,
    () => `for run ${runId} to end`,
  );
}

async function scheduledRuns(server: Server) {
  return (await server.ctx.engine.list({ workflow: 'minutely', limit: 200 })).runs;
}

describe('schedules on a shared database', () => {
  it('a due time while another server was up is fired by a server started after it, once', async () => {
    const { url, project, clock } = await setup();
    const a = await startServer(url, project, clock);
    expect(await a.schedules.tick()).toEqual([]); // first seen at 08:59:30
    // 09:00:05: A has not ticked since 09:00 fell due when B starts, and B ticks first.
    clock.now = T0 + 35_000;
    const b = await startServer(url, project, clock);
    expect(await outcomes(b)).toEqual([['fired', '2030-01-07T09:00:00.000Z']]);
    expect(await a.schedules.tick()).toEqual([]);
    const runs = await scheduledRuns(a);
    expect(runs).toHaveLength(1);
    expect((await settled(a, runs[0]!.id)).status).toBe('completed');
    // Both carry on as one: 09:01 fires once.
    clock.now += MINUTE;
    const both = [...(await outcomes(a)), ...(await outcomes(b))];
    expect(both).toEqual([['fired', '2030-01-07T09:01:00.000Z']]);
    expect(await scheduledRuns(b)).toHaveLength(2);
  });

  it("the span passes on: a server started while another is up keeps counting from that one's start after it stops", async () => {
    const { url, project, clock } = await setup();
    const a = await startServer(url, project, clock);
    await a.schedules.tick();
    clock.now = T0 + 20_000; // 08:59:50
    const b = await startServer(url, project, clock);
    expect(await b.schedules.tick()).toEqual([]);
    await a.stop();
    // 09:00:05: C starts while B (up since A's start) is up, and ticks first.
    clock.now = T0 + 35_000;
    const c = await startServer(url, project, clock);
    expect(await outcomes(c)).toEqual([['fired', '2030-01-07T09:00:00.000Z']]);
    expect(await b.schedules.tick()).toEqual([]);
    const since = await c.ctx.database!.query<{ since: string }>("SELECT record->>'schedulesSince' AS since FROM svc_servers WHERE id = $1", [
      c.ctx.engine.serverId,
    ]);
    expect(since.rows[0]!.since).toBe(new Date(T0).toISOString());
    expect(await scheduledRuns(b)).toHaveLength(1);
  });

  it('due times while every server was down are not replayed', async () => {
    const { url, project, clock } = await setup();
    const a = await startServer(url, project, clock);
    await a.schedules.tick();
    clock.now = T0 + 31_000; // 09:00:01
    expect(await outcomes(a)).toEqual([['fired', '2030-01-07T09:00:00.000Z']]);
    await settled(a, (await scheduledRuns(a))[0]!.id);
    await a.stop();
    // Every server down from 09:00:01 to 09:03:10: 09:01, 09:02 and 09:03 are not replayed.
    clock.now = T0 + 3 * MINUTE + 40_000;
    const b = await startServer(url, project, clock);
    expect((await b.schedules.tick()).map((o) => o.outcome)).toEqual(['missed_while_down']);
    expect(await scheduledRuns(b)).toHaveLength(1);
    clock.now += MINUTE; // 09:04:10
    expect(await outcomes(b)).toEqual([['fired', '2030-01-07T09:04:00.000Z']]);
    expect(await scheduledRuns(b)).toHaveLength(2);
  });
});

describe('a scheduler whose database fails', () => {
  it('logs the failed tick and leaves no promise rejected unhandled (the server would log each tick as a bug)', async () => {
    const url = await postgres.createDatabase();
    const db = await openPostgres({ url, logger: silentLogger });
    // The database is gone from under the scheduler: every query of its tick rejects.
    await db.close();
    const logged: string[] = [];
    const unhandled: unknown[] = [];
    const note = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', note);
    const service = new ScheduleService({
      repository: postgresScheduleRepository(db),
      upSince: postgresScheduleUptime(db, 'srv_gone'),
      logger: { ...silentLogger, error: (event) => logged.push(event) },
      scheduled: async () => [],
      startRun: async () => undefined,
      runState: async () => undefined,
    });
    try {
      service.start();
      await waitFor(() => logged.includes('schedule.tick_failed'), 5000);
      // Rejections are reported after the microtasks of the turn that left them unhandled.
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      service.stop();
      process.off('unhandledRejection', note);
    }
    expect(unhandled).toEqual([]);
  });
});
