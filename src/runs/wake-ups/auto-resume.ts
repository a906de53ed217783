/**
 * Auto-resume after a usage limit (docs/decisions.md, "Auto-resume"). A run that fails on an
 * agent's usage limit, with `auto_resume` on (the workflow's, else `SVC_AUTO_RESUME_ON_LIMIT`), gets
 * a wake-up: `autoResumeAt` on its record, written with the failure itself, so a restart keeps
 * it. The server keeps each wake-up once, by compare-and-set on the record — with several
 * servers on one database only the one whose claim lands resumes — through the same operations as `svc
 * resume`: the resume mark, then the start that continues the run and skips its completed nodes.
 * The wake-up is also the run's `wakeAt`: the server's one timer of wake-ups.ts keeps it.
 */

import { frozenDefinition } from '../model/frozen-definition.js';
import type { Logger } from '../../shared/logger.js';
import type { StartRunRequest } from '../model/start-request.js';
import { RunChangedElsewhere } from '../storage/transition.js';
import type { WakeUpKind } from './wake-ups.js';
import type { RunStore } from '../storage/run-store.js';
import type { RunRecord } from '../model/types.js';

/**
 * The wake-up of a run failing with `code`: its `resumeAt` when it hit a usage limit and
 * auto-resume is on for it (the workflow's `auto_resume`, else the server's default); else null.
 */
export function autoResumeAppointment(run: RunRecord, code: string | null, resumeAt: string | null, serverDefault: boolean): string | null {
  if (code !== 'usage_limit' || !resumeAt) return null;
  const validation = frozenDefinition(run);
  const own = validation.ok ? validation.workflow.autoResume : undefined;
  return (own ?? serverDefault) ? resumeAt : null;
}

/**
 * `cancel` or `abandon` of a failed run with a wake-up calls the wake-up off; the run stays
 * failed (a person can still resume it). Resolves to the run so, or undefined when it has none (the operation
 * then applies as usual); 409 when the wake-up was kept or called off meanwhile.
 */
export async function cancelAutoResume(runs: RunStore, run: RunRecord, reason: 'cancel' | 'abandon'): Promise<RunRecord | undefined> {
  const at = run.autoResumeAt;
  if (run.status !== 'failed' || !at) return undefined;
  if (!(await runs.claimAutoResume(run.id, at))) throw new RunChangedElsewhere(run.id, reason, (await runs.get(run.id))?.status);
  const calledOff = (await runs.get(run.id)) ?? { ...run, autoResumeAt: null, wakeAt: null };
  await runs.emit(calledOff, 'auto_resume_cancelled', { at, reason });
  return calledOff;
}

/** The engine's operations a resume goes through: `POST …/resume`, then the start that continues the run. */
interface RunResumeDoors {
  resume(runId: string): Promise<RunRecord>;
  start(request: StartRunRequest): Promise<RunRecord>;
}

/** Resumes a failed run as `svc resume` does: marks it, then starts its workflow again in its conversation and directory. */
async function resumeRun(engine: RunResumeDoors, runId: string): Promise<void> {
  const run = await engine.resume(runId);
  await engine.start({ workflow: run.workflow, message: run.message, cwd: run.cwd, conversationId: run.conversationId, trigger: run.trigger });
}

/**
 * The auto-resume kind of timed wake-up (wake-ups.ts): a failed run whose `wakeAt` (its
 * `autoResumeAt`, set together) has come is claimed by compare-and-set — with several servers on
 * one database, or a timer and a cancel, one wins and the others let it go — and resumed.
 */
export function autoResumeKind(runs: RunStore, engine: RunResumeDoors, logger: Logger): WakeUpKind {
  return {
    name: 'auto-resume',
    statuses: ['failed'],
    async keep(run) {
      const at = run.autoResumeAt;
      if (!at || !(await runs.claimAutoResume(run.id, at))) return;
      try {
        await resumeRun(engine, run.id);
        logger.info('run.auto_resumed', { runId: run.id, at });
      } catch (error) {
        logger.warn('run.auto_resume_failed', { runId: run.id, at, error: (error as Error).message });
      }
    },
  };
}
