// Schedules with an injected clock: the real context (store, catalog, engine) and a
// ScheduleService whose `now` the test moves: a due firing, overlap skip and queue, a restart that
// neither fires twice nor replays what was missed while down, and a firing recovered after a crash.
import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { closeContext, createContext, type AppContext } from '../../src/app/context.js';
import { scheduledWorkflows } from '../../src/schedules/index.js';
import { isTerminal } from '../../src/runs/model/types.js';
import { openScheduleRepository, scheduleId, ScheduleService } from '../../src/schedules/index.js';
import { loadSettings } from '../../src/shared/settings.js';
import { makeHome } from '../helpers/server.js';
import { makeProject, type Project } from '../helpers/workflow-project.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const MINUTE = 60_000;
const T0 = Date.parse('2030-01-07T08:59:30Z');

function scheduledYaml(name: string, bash: string, schedule: string): string {
  return [
    `name: ${name}`,
    'description: scheduled',
    'nodes:',
    '  - id: work',
    `    bash: ${JSON.stringify(bash)}`,
    'triggers:',
    '  schedule:',
    `    - ${schedule}`,
  ].join('\n');
}

async function setup(files: Record<string, string>): Promise<{ ctx: AppContext; project: Project }> {
  const project = await makeProject();
  cleanup.push(() => project.remove());
  for (const [file, text] of Object.entries(files)) await project.write(file, text);
  const home = await makeHome();
  cleanup.push(() => rm(home, { recursive: true, force: true }));
  const ctx = await createContext({ settings: loadSettings({ ...process.env, SVC_HOME: home, SVC_LOG_LEVEL: 'warn' }), role: 'cli' });
  cleanup.push(async () => {
    for (const run of (await ctx.engine.list({ limit: 200 })).runs) if (!isTerminal(run.status)) await ctx.engine.cancel(run.id).catch(() => {});
    await closeContext(ctx);
  });
  return { ctx, project };
}

/** A ScheduleService on the context's store and engine, with a clock the test sets. */
async function scheduler(ctx: AppContext, project: Project, clock: { now: number }) {
  return new ScheduleService({
    repository: await openScheduleRepository(ctx.store),
    logger: ctx.logger,
    scheduled: () => scheduledWorkflows(ctx.workflows, project.dir),
    startRun: (request) => ctx.engine.start({ ...request, trigger: 'schedule' }),
    runState: async (runId) => {
      const run = await ctx.engine.find(runId);
      return run ? { terminal: isTerminal(run.status) } : undefined;
    },
    now: () => clock.now,
  });
}

describe('schedules', () => {
  it('fires when due, once: a run with trigger "schedule", its message and variables', async () => {
    const { ctx, project } = await setup({
      'daily.yaml': scheduledYaml('daily', 'echo "$TRIGGER_TYPE $SCHEDULE_DUE_AT"', '{ cron: "0 9 * * 1-5", timezone: UTC, message: standup }'),
    });
    const clock = { now: T0 };
    const service = await scheduler(ctx, project, clock);
    expect(await service.tick()).toEqual([]); // first seen: counting starts now
    clock.now = T0 + 20_000; // 08:59:50
    expect(await service.tick()).toEqual([]);
    clock.now = T0 + 31_000; // 09:00:01
    const [fired] = await service.tick();
    expect(fired).toMatchObject({ workflow: 'daily', dueAt: '2030-01-07T09:00:00.000Z', outcome: 'fired' });
    const run = await ctx.engine.waitUntilSettled(fired!.runId!);
    expect(run).toMatchObject({ trigger: 'schedule', message: 'standup', status: 'completed' });
    expect(run.nodes.work!.output!.trim()).toBe('schedule 2030-01-07T09:00:00.000Z');
    clock.now += MINUTE;
    expect(await service.tick()).toEqual([]);
    const [listed] = await service.list();
    expect(listed).toMatchObject({
      workflow: 'daily',
      cron: '0 9 * * 1-5',
      timezone: 'UTC',
      overlap: 'skip',
      next_at: '2030-01-08T09:00:00.000Z',
      last_run_id: run.id,
    });
  });

  it('overlap skip starts none while the previous scheduled run is not terminal; queue starts one when it ends', async () => {
    const { ctx, project } = await setup({
      'slow.yaml': scheduledYaml('slow', 'sleep 30', '{ cron: "* * * * *" }'),
      'queued.yaml': scheduledYaml('queued', 'sleep 30', '{ cron: "* * * * *", overlap: queue }'),
    });
    const clock = { now: T0 };
    const service = await scheduler(ctx, project, clock);
    await service.tick();
    clock.now = T0 + 31_000;
    const first = await service.tick();
    expect(first.map((o) => [o.workflow, o.outcome]).sort()).toEqual([
      ['queued', 'fired'],
      ['slow', 'fired'],
    ]);
    clock.now += MINUTE;
    const second = await service.tick();
    expect(second.map((o) => [o.workflow, o.outcome]).sort()).toEqual([
      ['queued', 'queued'],
      ['slow', 'skipped_overlap'],
    ]);
    expect((await ctx.engine.list({ workflow: 'slow' })).total).toBe(1);
    for (const o of first) await ctx.engine.cancel(o.runId!);
    const third = await service.tick();
    expect(third.map((o) => [o.workflow, o.outcome])).toEqual([['queued', 'fired']]);
    expect((await ctx.engine.list({ workflow: 'queued' })).total).toBe(2);
  });

  it('a restart neither fires a firing twice nor replays the ones missed while down', async () => {
    const { ctx, project } = await setup({ 'minutely.yaml': scheduledYaml('minutely', 'true', '{ cron: "* * * * *" }') });
    const clock = { now: T0 };
    const before = await scheduler(ctx, project, clock);
    await before.tick();
    clock.now = T0 + 31_000; // 09:00:01
    const [fired] = await before.tick();
    expect(fired!.outcome).toBe('fired');
    await ctx.engine.waitUntilSettled(fired!.runId!);
    // Restarted at 09:00:20: the 09:00 firing is on record.
    clock.now = T0 + 50_000;
    const restarted = await scheduler(ctx, project, clock);
    expect(await restarted.tick()).toEqual([]);
    // Down from 09:00:20 to 09:03:10: 09:01, 09:02 and 09:03 are not replayed.
    clock.now = T0 + 3 * MINUTE + 40_000;
    const afterDowntime = await scheduler(ctx, project, clock);
    expect((await afterDowntime.tick()).map((o) => o.outcome)).toEqual(['missed_while_down']);
    expect((await ctx.engine.list({ workflow: 'minutely' })).total).toBe(1);
    clock.now += MINUTE; // 09:04:10
    expect((await afterDowntime.tick()).map((o) => [o.outcome, o.dueAt])).toEqual([['fired', '2030-01-07T09:04:00.000Z']]);
    expect((await ctx.engine.list({ workflow: 'minutely' })).total).toBe(2);
  });

  it('a firing recorded but lost to a crash before its run existed is started with its recorded id', async () => {
    const { ctx, project } = await setup({ 'minutely.yaml': scheduledYaml('minutely', 'true', '{ cron: "* * * * *" }') });
    const [s] = await scheduledWorkflows(ctx.workflows, project.dir);
    const repository = await openScheduleRepository(ctx.store);
    await repository.put({
      id: scheduleId(s!),
      workflow: 'minutely',
      lastDueAt: '2030-01-07T09:00:00.000Z',
      pendingRunId: 'run_0000000000lost0001',
      lastRunId: null,
    });
    const clock = { now: T0 + 40_000 };
    const service = await scheduler(ctx, project, clock);
    expect(await service.tick()).toEqual([{ workflow: 'minutely', dueAt: '2030-01-07T09:00:00.000Z', outcome: 'recovered', runId: 'run_0000000000lost0001' }]);
    expect((await ctx.engine.waitUntilSettled('run_0000000000lost0001')).trigger).toBe('schedule');
    expect(await service.tick()).toEqual([]);
  });
});
