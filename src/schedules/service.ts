/**
 * Schedules (docs/decisions.md, "Schedules"): `triggers.schedule` of the workflows the catalog sees
 * start runs with `trigger: "schedule"` when due. The clock is injected (`now`), and `tick(now)`
 * is the whole decision, so tests drive time by hand.
 *
 * - A schedule first seen starts counting from then: nothing in the past fires.
 * - Each tick handles the latest due time since the last one handled (several missed ones collapse
 *   into one). A due time while no server was up is not replayed: before this process started, or,
 *   with servers sharing a database, before the span in which some server has been up without a
 *   break (`upSince`, docs/scaling.md).
 * - A firing is recorded durably (`pendingRunId`) before its run is created; if a crash lost the
 *   run, the next tick creates it, so a firing due while running is neither lost nor doubled.
 * - `overlap: skip` starts none while the previous scheduled run is not terminal; `queue` keeps the
 *   firing until that run ends.
 */

import { createHash } from 'node:crypto';
import { newId } from '../shared/ids.js';
import type { Logger } from '../shared/logger.js';
import { nextFiring, type ScheduleTrigger } from '../workflows/index.js';
import type { ScheduleStateRepository } from './repository.js';

/** One schedule of one workflow, as discovery found it. */
export interface ScheduledWorkflow {
  workflow: string;
  filename: string;
  cwd: string;
  workspaceId: string | null;
  index: number;
  schedule: ScheduleTrigger;
}

export interface ScheduleDeps {
  repository: ScheduleStateRepository;
  logger: Logger;
  /** Every schedule of the workflows visible to the server now. */
  scheduled(): Promise<ScheduledWorkflow[]>;
  startRun(request: {
    runId: string;
    workflow: string;
    message: string;
    cwd: string;
    workspaceId: string | null;
    variables: Record<string, string>;
  }): Promise<unknown>;
  /** A run's state: undefined when it does not exist. */
  runState(runId: string): Promise<{ terminal: boolean } | undefined>;
  /**
   * Servers sharing a database: the start of the span in which some server has been up firing
   * schedules without a break, this one (up since `startedAt`) included; asked at every tick.
   * Absent (the file store, one server): `startedAt`.
   */
  upSince?(startedAt: number): Promise<number>;
  /** @default Date.now */
  now?: () => number;
}

export interface ScheduleView {
  workflow: string;
  cron: string;
  timezone: string | null;
  overlap: 'skip' | 'queue';
  next_at: string | null;
  last_due_at: string | null;
  last_run_id: string | null;
}

/** The firings a tick made or declined (for logs and tests). */
export interface TickOutcome {
  workflow: string;
  dueAt: string;
  outcome: 'fired' | 'skipped_overlap' | 'queued' | 'missed_while_down' | 'recovered';
  runId?: string;
}

const MAX_CATCH_UP = 100_000;
const TICK_MS = 15_000;

export const scheduleId = (s: Pick<ScheduledWorkflow, 'filename' | 'index' | 'schedule'>) =>
  createHash('sha256')
    .update(`${s.filename}\n${s.index}\n${s.schedule.cron}\n${s.schedule.timezone ?? ''}`)
    .digest('hex');

export class ScheduleService {
  readonly #deps: ScheduleDeps;
  readonly #now: () => number;
  /** Due times before this are missed while the server was down (unless another server was up: `upSince`). */
  readonly #startedAt: number;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<TickOutcome[]> | undefined;

  constructor(deps: ScheduleDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#startedAt = this.#now();
  }

  /** Ticks now and every few seconds until `stop()` (the server). */
  start(): void {
    if (this.#timer) return;
    const loop = () => {
      // A failed tick is logged by `tick` (a database that does not answer): the loop goes on.
      void this.tick()
        .catch(() => [])
        .finally(() => {
          if (this.#timer) this.#timer = setTimeout(loop, TICK_MS).unref();
        });
    };
    this.#timer = setTimeout(loop, 0).unref();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Handles every due schedule at `now`; one tick at a time. */
  tick(now = this.#now()): Promise<TickOutcome[]> {
    const run = (this.#ticking ?? Promise.resolve([])).then(() => this.#tick(now));
    this.#ticking = run.catch((error: unknown) => {
      this.#deps.logger.error('schedule.tick_failed', { error: (error as Error).message });
      return [];
    });
    return run;
  }

  async list(now = this.#now()): Promise<ScheduleView[]> {
    const views: ScheduleView[] = [];
    for (const s of await this.#deps.scheduled()) {
      const state = await this.#deps.repository.get(scheduleId(s));
      const next = nextFiring(s.schedule.cron, s.schedule.timezone, new Date(now));
      views.push({
        workflow: s.workflow,
        cron: s.schedule.cron,
        timezone: s.schedule.timezone ?? null,
        overlap: s.schedule.overlap,
        next_at: next?.toISOString() ?? null,
        last_due_at: state?.lastDueAt ?? null,
        last_run_id: state?.lastRunId ?? null,
      });
    }
    return views;
  }

  async #tick(now: number): Promise<TickOutcome[]> {
    const outcomes: TickOutcome[] = [];
    const upSince = this.#deps.upSince ? await this.#deps.upSince(this.#startedAt) : this.#startedAt;
    for (const s of await this.#deps.scheduled()) {
      try {
        const outcome = await this.#handle(s, now, upSince);
        if (outcome) outcomes.push(outcome);
      } catch (error) {
        this.#deps.logger.error('schedule.firing_failed', { workflow: s.workflow, cron: s.schedule.cron, error: (error as Error).message });
      }
    }
    for (const o of outcomes) this.#deps.logger.info(`schedule.${o.outcome}`, { ...o });
    return outcomes;
  }

  /** `upSince`: due times before it fell while no server was up. */
  async #handle(s: ScheduledWorkflow, now: number, upSince: number): Promise<TickOutcome | undefined> {
    const { repository } = this.#deps;
    const id = scheduleId(s);
    let state = await repository.get(id);
    if (!state) {
      await repository.insertIfAbsent({ id, workflow: s.workflow, lastDueAt: new Date(now).toISOString(), pendingRunId: null, lastRunId: null });
      return undefined;
    }
    if (state.pendingRunId && !(await this.#deps.runState(state.pendingRunId))) {
      // Recorded, then lost to a crash before the run existed: create it now, with the recorded id.
      await this.#start(s, state.pendingRunId, state.lastDueAt);
      await repository.put({ ...state, pendingRunId: null, lastRunId: state.pendingRunId }, { sync: false });
      return { workflow: s.workflow, dueAt: state.lastDueAt, outcome: 'recovered', runId: state.pendingRunId };
    }
    if (state.pendingRunId) {
      // The run exists but the crash came before it was noted as the last one: note it now, so the
      // overlap check below looks at it.
      state = { ...state, pendingRunId: null, lastRunId: state.pendingRunId };
      await repository.put(state);
    }
    let from = new Date(state.lastDueAt);
    const first = nextFiring(s.schedule.cron, s.schedule.timezone, from);
    if (!first || first.getTime() > now) return undefined;
    if (first.getTime() < upSince) {
      // Due while no server was up: not replayed; counting resumes from when one was. Set only if
      // unchanged: another server sharing the database may be handling this schedule right now.
      from = new Date(upSince - 1);
      if (!latestDue(s.schedule, from, now)) {
        const handled = await repository.replaceIf(state, { ...state, lastDueAt: from.toISOString(), pendingRunId: null }, { sync: false });
        return handled ? { workflow: s.workflow, dueAt: first.toISOString(), outcome: 'missed_while_down' } : undefined;
      }
    }
    const due = latestDue(s.schedule, from, now);
    if (!due) return undefined;
    const dueAt = due.toISOString();
    const previous = state.lastRunId ? await this.#deps.runState(state.lastRunId) : undefined;
    if (previous && !previous.terminal) {
      if (s.schedule.overlap === 'queue') return { workflow: s.workflow, dueAt, outcome: 'queued' };
      // Set only if unchanged, as above: a skip must not undo another server's firing.
      const handled = await repository.replaceIf(state, { ...state, lastDueAt: dueAt, pendingRunId: null }, { sync: false });
      return handled ? { workflow: s.workflow, dueAt, outcome: 'skipped_overlap' } : undefined;
    }
    const runId = newId('run');
    // Reserved by compare-and-set: of several servers sharing a database, one fires it (docs/scaling.md).
    if (!(await repository.replaceIf(state, { ...state, lastDueAt: dueAt, pendingRunId: runId }))) return undefined;
    await this.#start(s, runId, dueAt);
    await repository.put({ ...state, lastDueAt: dueAt, pendingRunId: null, lastRunId: runId }, { sync: false });
    return { workflow: s.workflow, dueAt, outcome: 'fired', runId };
  }

  #start(s: ScheduledWorkflow, runId: string, dueAt: string) {
    return this.#deps.startRun({
      runId,
      workflow: s.workflow,
      message: s.schedule.message ?? `scheduled: ${s.schedule.cron}`,
      cwd: s.cwd,
      workspaceId: s.workspaceId,
      variables: { TRIGGER_TYPE: 'schedule', SCHEDULE_CRON: s.schedule.cron, SCHEDULE_DUE_AT: dueAt },
    });
  }
}

/** The latest due time after `after` and at or before `now`, or undefined when none is due. */
function latestDue(schedule: ScheduleTrigger, after: Date, now: number): Date | undefined {
  let due = nextFiring(schedule.cron, schedule.timezone, after);
  if (!due || due.getTime() > now) return undefined;
  for (let i = 0; i < MAX_CATCH_UP; i++) {
    const next = nextFiring(schedule.cron, schedule.timezone, due);
    if (!next || next.getTime() > now) break;
    due = next;
  }
  return due;
}
