/**
 * Durations in workflow YAML (docs/contract.md, "Workflow files"): a bare number means seconds (`timeout: 30`); a string
 * carries its unit (`500ms`, `30s`, `1.5s`, `10m`, `2h`). Everything inside svc works in
 * milliseconds, so this is the only place that knows the spellings.
 */

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

// One number and one unit; no compound forms like `1h30m` (write `90m`), no bare numeric strings
// (a quoted "30" is more likely a mistake than a deliberate number of seconds).
const DURATION_TEXT = /^(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h)$/;

/** How a duration may be written, for error messages. */
export const DURATION_HINT = 'seconds as a number, or a string such as 500ms, 30s, 1.5s, 10m, 2h';

/**
 * Milliseconds for a duration, or null when the value is not one. Negative values are not
 * durations; zero is (a retry `delay` of 0 is meaningful — a `timeout` of 0 is refused by the caller).
 * Fractions are rounded to whole milliseconds.
 */
export function parseDuration(value: number | string): number | null {
  if (typeof value === 'number') {
    return Number.isFinite(value) && value >= 0 ? Math.round(value * 1000) : null;
  }
  const match = DURATION_TEXT.exec(value.trim());
  if (match === null) return null;
  const amount = Number(match[1]);
  const unit = match[2] as keyof typeof UNIT_MS;
  const ms = Math.round(amount * UNIT_MS[unit]);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * A short human spelling of a millisecond count: `500ms`, `1.5s`, `10m`, `2h`, `1h30m`, `25h1m1s`.
 * Single-unit results parse back to the same value with `parseDuration`.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms < 0) return `-${formatDuration(-ms)}`;
  const whole = Math.round(ms);
  if (whole < 1000) return `${whole}ms`;
  const hours = Math.floor(whole / UNIT_MS.h);
  const minutes = Math.floor((whole % UNIT_MS.h) / UNIT_MS.m);
  const seconds = (whole % UNIT_MS.m) / UNIT_MS.s; // may carry milliseconds as a fraction
  let text = '';
  if (hours > 0) text += `${hours}h`;
  if (minutes > 0) text += `${minutes}m`;
  if (seconds > 0) text += `${Number(seconds.toFixed(3))}s`;
  return text;
}
