/**
 * Auto-resume after a usage limit (docs/decisions.md, Runs: "Auto-resume"). A run that fails on an
 * agent's usage limit, with `auto_resume` on (the workflow's, else `SVC_AUTO_RESUME_ON_LIMIT`), gets
 * an appointment: `autoResumeAt` on its record, written with the failure itself, so a restart keeps
 * it. The server keeps each appointment once, by compare-and-set on the record — with several
 * servers on one database only the one whose claim lands resumes — through the same doors as `svc
 * resume`: the resume mark, then the start that continues the run and skips its completed nodes.
 * Its own module, so that it can move behind a coordination interface as a timed appointment.
 */

import type { Logger } from '../shared/logger.js';
import { validateWorkflowSource } from '../workflows/index.js';
import type { StartRunRequest } from './engine-deps.js';
import { RunChangedElsewhere } from './lifecycle.js';
import type { AutoResumeAppointments } from './run-repository.js';
import type { RunStore } from './run-store.js';
import type { RunRecord } from './types.js';

/**
 * The appointment of a run failing with `code`: its `resumeAt` when it hit a usage limit and
 * auto-resume is on for it (the workflow's `auto_resume`, else the server's default); else null.
 */
export function autoResumeAppointment(run: RunRecord, code: string | null, resumeAt: string | null, serverDefault: boolean): string | null {
  if (code !== 'usage_limit' || !resumeAt) return null;
  const validation = validateWorkflowSource(run.definition);
  const own = validation.ok ? validation.workflow.autoResume : undefined;
  return (own ?? serverDefault) ? resumeAt : null;
}

/**
 * `cancel` or `abandon` of a failed run with an appointment calls the appointment off; the run stays
 * failed (a person can still resume it). Resolves to the run so, or undefined when it has none (the operation
 * then applies as usual); 409 when the appointment was kept or called off meanwhile.
 */
export async function cancelAutoResume(runs: RunStore, run: RunRecord, reason: 'cancel' | 'abandon'): Promise<RunRecord | undefined> {
  const at = run.autoResumeAt;
  if (run.status !== 'failed' || !at) return undefined;
  if (!(await runs.claimAutoResume(run.id, at))) throw new RunChangedElsewhere(run.id, reason, (await runs.get(run.id))?.status);
  const calledOff = (await runs.get(run.id)) ?? { ...run, autoResumeAt: null };
  await runs.emit(calledOff, 'auto_resume_cancelled', { at, reason });
  return calledOff;
}

/** The engine's doors a resume goes through: `POST …/resume`, then the start that continues the run. */
export interface RunResumeDoors {
  resume(runId: string): Promise<RunRecord>;
  start(request: StartRunRequest): Promise<RunRecord>;
}

/** Resumes a failed run as `svc resume` does: marks it, then starts its workflow again in its conversation and directory. */
export async function resumeRun(engine: RunResumeDoors, runId: string): Promise<void> {
  const run = await engine.resume(runId);
  await engine.start({ workflow: run.workflow, message: run.message, cwd: run.cwd, conversationId: run.conversationId, trigger: run.trigger });
}

/**
 * Appointments made elsewhere (another server on the database) are seen at the latest this long
 * after they are made; this server's own wake the timer at once.
 */
export const AUTO_RESUME_CHECK_MS = 60_000;

export interface AutoResumerDeps {
  appointments: AutoResumeAppointments;
  /** Resumes the run (`resumeRun` on the engine); a rejection is logged, the run stays failed. */
  resume(runId: string): Promise<void>;
  logger: Logger;
  now?: () => number;
}

/**
 * The server's clock of appointments: one timer, set for the earliest appointment (or the next
 * check), and a check at start so that appointments made before a restart, due meanwhile, are kept.
 */
export class AutoResumer {
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #checking: Promise<void> | undefined;
  #again = false;

  constructor(private readonly deps: AutoResumerDeps) {}

  /** Keeps what is due, then sets the timer for the next appointment. Called at start and whenever an appointment is made. */
  check(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    // One check at a time; one asked meanwhile runs after it (an appointment made during a check).
    if (this.#checking) {
      this.#again = true;
      return this.#checking;
    }
    this.#checking = (async () => {
      do {
        this.#again = false;
        await this.#checkOnce();
      } while (this.#again && !this.#stopped);
    })().finally(() => (this.#checking = undefined));
    return this.#checking;
  }

  /** Stops the timer; resolves once a check under way has finished (before the engine closes). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#checking;
  }

  async #checkOnce(): Promise<void> {
    const { appointments, logger } = this.deps;
    const now = this.deps.now ?? Date.now;
    clearTimeout(this.#timer);
    let delay = AUTO_RESUME_CHECK_MS;
    try {
      for (const { runId, at } of await appointments.dueAutoResumes(new Date(now()).toISOString())) {
        if (this.#stopped) return;
        // Another server, or a cancel, got there first: not ours to keep.
        if (!(await appointments.claimAutoResume(runId, at))) continue;
        try {
          await this.deps.resume(runId);
          logger.info('run.auto_resumed', { runId, at });
        } catch (error) {
          logger.warn('run.auto_resume_failed', { runId, at, error: (error as Error).message });
        }
      }
      const next = await appointments.nextAutoResume();
      if (next) delay = Math.min(AUTO_RESUME_CHECK_MS, Math.max(10, Date.parse(next.at) - now()));
    } catch (error) {
      logger.warn('run.auto_resume_check_failed', { error: (error as Error).message });
    }
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.check(), delay);
    this.#timer.unref();
  }
}
