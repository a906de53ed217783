/**
 * A check that never finishes (docs/decisions.md, "Pull request reactions"): a job hung past any
 * limit. Failed checks wait for a running one (`IN_PROGRESS`), so one running for ever would hold
 * the failed checks' reaction back, silently. Past `SVC_PR_CHECK_STUCK_MS` (default 6 h: a job on
 * GitHub's own runners is stopped at 6 h) of running on the same head commit, the pull request
 * needs a person, with the check named and how long; no run is started. A check queued, expected
 * (a required check nobody reports) or waiting (a deployment's approval) is never stuck: it holds
 * nothing back (follower.ts), and counting it made every pull request with a deployment waiting for
 * approval need a person, its review unanswered.
 *
 * How long is svc's own count: from the first look that saw the check running on that head commit
 * (`pendingSince` on the follow, kept only on a running check), not GitHub's `startedAt` — svc's
 * clock is the one it compares with.
 */

import { formatDuration } from '../shared/duration.js';
import type { PullCheck, PullFollow } from './records.js';

export const DEFAULT_CHECK_STUCK_MS = 6 * 60 * 60_000;

/**
 * When the running check started, as svc counts it: kept from the follow while it was running on
 * the same head commit, else `now` (a new head, a check that was queued, one run again after it finished).
 */
export function pendingSinceOf(before: PullCheck | undefined, sameHead: boolean, now: Date): string {
  return sameHead && before?.state === 'pending' && before.pendingSince ? before.pendingSince : now.toISOString();
}

/** Why the pull request needs a person because of checks running `stuckMs` or longer, or null when none is. */
export function stuckReason(follow: Pick<PullFollow, 'checks' | 'headCommit'>, now: Date, stuckMs: number): string | null {
  const stuck = follow.checks.flatMap((check) => {
    const pendingMs = check.state === 'pending' && check.pendingSince ? now.getTime() - Date.parse(check.pendingSince) : NaN;
    return pendingMs >= stuckMs ? [`${check.name} (pending for ${formatDuration(pendingMs - (pendingMs % 1000))})`] : [];
  });
  if (stuck.length === 0) return null;
  return `${stuck.length === 1 ? 'check' : 'checks'} ${stuck.join(', ')} on ${follow.headCommit ?? 'its head'} stuck: pending longer than ${formatDuration(
    stuckMs,
  )} (SVC_PR_CHECK_STUCK_MS); no run was started — re-run or cancel it on GitHub`;
}
