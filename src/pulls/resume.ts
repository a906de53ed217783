/**
 * A person's "go on" to a pull request that needs one (docs/decisions.md, "Resuming a pull request
 * that needs a person"): `needs_human` cleared and the bound counted afresh from here — the
 * reactions made before count no more, towards `max_fix_cycles` or towards "once per head commit",
 * so the head's failing checks get a new reaction; `maxFixCycles`, when given, is the bound for this
 * pull request from now on. The comments given to a reaction that failed since the last resume are
 * given back: still unresolved, they go to the next reaction. A check still running starts its count
 * again (stuck.ts): the person may have re-run it.
 */

import type { PullFollow, Reaction } from './records.js';

/** The reactions that count towards the bound: those since the last resume (all, before any). */
export const countedReactions = (follow: Pick<PullFollow, 'reactions' | 'countedFrom'>): Reaction[] => follow.reactions.slice(follow.countedFrom ?? 0);

/** What a resume changes of the follow. */
export function resumePatch(follow: PullFollow, maxFixCycles: number | undefined, now: Date): Partial<PullFollow> {
  const failed = new Set(
    countedReactions(follow)
      .filter((r) => r.state === 'failed')
      .flatMap((r) => r.comments),
  );
  return {
    needsHuman: null,
    countedFrom: follow.reactions.length,
    maxFixCycles: maxFixCycles ?? follow.maxFixCycles,
    handledComments: follow.handledComments.filter((id) => !failed.has(id)),
    checks: follow.checks.map((check) => (check.pendingSince ? { ...check, pendingSince: now.toISOString() } : check)),
  };
}
