/**
 * The lines `svc runs show` prints of a run's followed pull request (docs/decisions.md, "Pull
 * request reactions"): its state and head, each check with its state, each reaction with its
 * follow-on run and outcome, and whether a person is needed, with why and how to go on. Every value
 * from GitHub (a check's name, a reason quoting gh, a URL) is printed as one clean line
 * (shared/printable.ts): a name holding an escape sequence or a carriage return repaints nothing.
 */

import type { RunDetail } from '../../../client/index.js';
import { printableLine as line } from '../../../shared/printable.js';

type Paint = (text: string) => string;

/** A reaction's place in the bound: `2/3`; one made before the last resume counts no more (docs/decisions.md, "Resuming a pull request that needs a person"). */
const cycleOf = (index: number, countedFrom: number | undefined, max: number) =>
  index < (countedFrom ?? 0) ? `${index + 1} (before the last resume)` : `${index + 1 - (countedFrom ?? 0)}/${max}`;

export function pullLines(run: RunDetail, paint: { yellow: Paint; red: Paint; green: Paint }): string[] {
  const { pr } = run;
  if (!pr) return [];
  const checks = pr.checks.map((c) => {
    const state = c.state === 'failure' ? paint.red(c.state) : c.state === 'success' ? paint.green(c.state) : c.state;
    return `${line(c.name)} ${state}${c.infrastructure ? ` (the CI's own failure: ${line(c.infrastructure)})` : ''}`;
  });
  return [
    `  pr:       ${line(pr.url)}`,
    `            #${pr.number} ${pr.state}${pr.headCommit ? ` at ${line(pr.headCommit.slice(0, 10))}` : ''}${pr.lastError ? paint.yellow(`   last look failed: ${line(pr.lastError)}`) : ''}`,
    ...(checks.length ? [`  checks:   ${checks.join(', ')}`] : []),
    ...pr.reactions.map(
      (r, i) =>
        `  reaction: ${cycleOf(i, pr.countedFrom, pr.maxFixCycles)} ${line(r.kind === 'ci' ? `checks ${r.checks.join(', ')}` : `comments ${r.comments.join(', ')}`)} → ${line(
          r.workflow,
        )} ${r.followOnRunId} ${r.outcome ?? r.state}${r.error ? `: ${line(r.error)}` : ''}`,
    ),
    ...(pr.cleanup ? [`  cleanup:  ${pr.cleanup.map((c) => `${c.runId} ${c.removed ? 'removed' : `kept (${line(c.reason ?? '')})`}`).join('; ')}`] : []),
    // What the person asked can do once they decided: the command that says go on.
    ...(run.needsHuman
      ? [
          `  needs:    ${paint.yellow(`a person: ${line(run.needsHumanReason ?? '')}`)}`,
          `            to go on: svc runs pr ${run.id} --resume [--max-fix-cycles N]`,
        ]
      : []),
  ];
}
