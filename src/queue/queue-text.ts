/**
 * The words the landing queue writes (docs/decisions.md, "Landing queue"): the landing commit's
 * message, which names the run once (merge.ts adds its `Svc-Run:` trailer and nothing else does),
 * and the tail of a failed verification's output kept on the entry and its event.
 */

import type { RunRecord } from '../runs/index.js';

const SUBJECT_MAX = 72;
const TAIL_LINES = 40;
const TAIL_CHARS = 4000;

/** The run's message's first line, else its workflow: never the run id, which the trailer gives. */
export function landingMessage(run: Pick<RunRecord, 'message' | 'workflow'>): string {
  const line =
    run.message
      .split('\n')
      .find((text) => text.trim() !== '')
      ?.trim() ?? '';
  const subject = line || `Land a run of ${run.workflow}`;
  return subject.length > SUBJECT_MAX ? `${subject.slice(0, SUBJECT_MAX - 1)}…` : subject;
}

/** The last lines of what verify printed, at most TAIL_CHARS: where a failing test says why. */
export function outputTail(output: string): string {
  const lines = output.trimEnd().split('\n').slice(-TAIL_LINES).join('\n');
  return lines.length > TAIL_CHARS ? lines.slice(-TAIL_CHARS) : lines;
}
