/**
 * When a followed pull request is looked at next (docs/decisions.md, "Pull request reactions"). A
 * pull request is busiest when new: checks report within minutes of a push, reviews within hours.
 * So every 30 s in its first hour, then every 2 min until 6 h, 5 min until a day, 15 min until a
 * week, hourly after that — and every 10 s while a reaction's follow-on run works (its end is
 * what the pull request waits for). `SVC_PR_POLL_MS` replaces all of it with one fixed interval.
 * A webhook delivery looks at once, whatever the schedule.
 */

import type { PullFollow } from './records.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** By the pull request's age since svc began following it: [younger than, look every]. */
export const BACKOFF: ReadonlyArray<readonly [number, number]> = [
  [HOUR, 30_000],
  [6 * HOUR, 2 * MINUTE],
  [24 * HOUR, 5 * MINUTE],
  [7 * 24 * HOUR, 15 * MINUTE],
];
export const OLDEST_INTERVAL_MS = HOUR;
export const REACTION_INTERVAL_MS = 10_000;

export const IN_PROGRESS = ['starting', 'running', 'pushing'] as const;

export function lookIntervalMs(follow: Pick<PullFollow, 'followedAt' | 'reactions'>, now: Date, fixedMs: number | undefined): number {
  if (fixedMs !== undefined) return fixedMs;
  const age = now.getTime() - Date.parse(follow.followedAt);
  const interval = BACKOFF.find(([younger]) => age < younger)?.[1] ?? OLDEST_INTERVAL_MS;
  const working = follow.reactions.some((r) => (IN_PROGRESS as readonly string[]).includes(r.state));
  return working ? Math.min(interval, REACTION_INTERVAL_MS) : interval;
}

export const nextLookAt = (follow: Pick<PullFollow, 'followedAt' | 'reactions'>, now: Date, fixedMs: number | undefined): string =>
  new Date(now.getTime() + lookIntervalMs(follow, now, fixedMs)).toISOString();
