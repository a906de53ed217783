/**
 * Cron expressions of `triggers.schedule`, read by croner (docs/decisions.md, "Schedules"): five
 * fields, or six with seconds first; names (`mon`, `jan`) and the usual nicknames (`@daily`).
 */

import { Cron } from 'croner';

/** Why `expression` is not a cron expression, or undefined when it is one. */
export function cronProblem(expression: string): string | undefined {
  try {
    new Cron(expression, { paused: true });
    return undefined;
  } catch (error) {
    return (error as Error).message.replace(/^CronPattern: /, '');
  }
}

/** True for a time zone this Node knows (IANA names). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The first firing strictly after `after`, or undefined when there is none. */
export function nextFiring(expression: string, timezone: string | undefined, after: Date): Date | undefined {
  const next = new Cron(expression, { paused: true, ...(timezone ? { timezone } : {}) }).nextRun(after);
  return next ?? undefined;
}
