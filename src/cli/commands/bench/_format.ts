import { ApiResponseError } from '../../../client/index.js';
import { UsageError } from '../../exit-codes.js';

/** A bad `--since` or `--limit` is a usage error (exit 2); the API's message says what it takes. */
export function asUsageError(error: unknown): unknown {
  if (error instanceof ApiResponseError && ['invalid_since', 'invalid_until', 'invalid_limit', 'invalid_request'].includes(error.error)) {
    return new UsageError(error.message);
  }
  return error;
}

const BAR_WIDTH = 24;

/** A bar of `value` against `max`, in eighths of a cell, so small differences still show. */
export function bar(value: number, max: number, width = BAR_WIDTH): string {
  if (max <= 0 || value <= 0) return '';
  const eighths = Math.max(1, Math.round((value / max) * width * 8));
  const partial = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'][eighths % 8]!;
  return '█'.repeat(Math.floor(eighths / 8)) + partial;
}

/** `+1.2s` / `-300ms` / `0ms`: a signed duration. */
export function formatDelta(ms: number | null, format: (ms: number) => string): string {
  if (ms === null) return '-';
  if (ms === 0) return format(0);
  return `${ms > 0 ? '+' : '-'}${format(Math.abs(ms))}`;
}
