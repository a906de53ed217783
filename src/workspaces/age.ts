/**
 * How old something must be for `svc workspace cleanup --older-than`: one number and a unit —
 * `90m`, `12h`, `7d`, `2w` (seconds too, for tests: `30s`). Answers milliseconds, or null.
 */
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
const AGE = /^(\d+(?:\.\d+)?)\s*(s|m|h|d|w)$/;

export const AGE_HINT = 'a number and a unit: 30s, 90m, 12h, 7d, 2w (at most 100 years)';
const MAX_AGE_MS = 100 * 365 * UNIT_MS.d;

export function parseAge(text: string): number | null {
  const match = AGE.exec(text.trim());
  if (!match) return null;
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  // Past a century the cut-off date would leave the range a Date can hold.
  return Number.isFinite(ms) && ms <= MAX_AGE_MS ? Math.round(ms) : null;
}
