import { DomainError } from '../shared/errors.js';

/** What a benchmark or run query's `since`, `until` and `limit` may say, and the 400s for the rest. */

export const BENCHMARK_LIMIT_DEFAULT = 20;
export const BENCHMARK_LIMIT_MAX = 200;

const SINCE_RELATIVE = /^(\d+)([hdw])$/;
const UNIT_MS = { h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** `<n>h|d|w` before `now`, or an ISO date; anything else is 400 `code` (`invalid_since`, `invalid_until`). */
/** The largest time a Date can hold, in ms either side of 1970. */
const MAX_DATE_MS = 8.64e15;

export function parseTimeBound(
  value: string | undefined,
  now = Date.now(),
  code: 'invalid_since' | 'invalid_until' = 'invalid_since',
  name = 'since',
): number | undefined {
  if (value === undefined || value === '') return undefined;
  const refuse = () => new DomainError(code, `${name} is '<n>h', '<n>d', '<n>w' or an ISO date (e.g. 7d, 2026-01-31); got '${value}'.`);
  const relative = SINCE_RELATIVE.exec(value);
  const at = relative ? now - Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS] : ISO_DATE.test(value) ? Date.parse(value) : Number.NaN;
  // Outside what a Date can hold (`99999999999w`) is as wrong as a misspelling, never a 500 later.
  if (!Number.isFinite(at) || Math.abs(at) > MAX_DATE_MS) throw refuse();
  // `2026-02-31` parses (as March 3rd): a day the calendar does not have is refused.
  if (/^\d{4}-\d{2}-\d{2}$/.test(value) && new Date(at).toISOString().slice(0, 10) !== value) throw refuse();
  return at;
}

/** An integer 1–`max`, default `fallback`; anything else is 400 `invalid_limit`. */
export function parseLimit(value: string | undefined, fallback: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max) throw new DomainError('invalid_limit', `limit is an integer from 1 to ${max}; got '${value}'.`);
  return n;
}
