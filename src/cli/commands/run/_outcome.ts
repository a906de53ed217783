import type { RunStatus } from '../../../client/index.js';
import { EXIT } from '../../exit-codes.js';

/** The exit code a finished (or paused) run maps to (docs/decisions.md, CLI). */
export function exitCodeForStatus(status: RunStatus): number {
  switch (status) {
    case 'completed':
      return EXIT.ok;
    case 'cancelled':
    case 'abandoned':
      return EXIT.cancelled;
    case 'paused':
      return EXIT.paused;
    default:
      return EXIT.failed;
  }
}

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '-';
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes}m${Math.round((ms % 60_000) / 1000)}s`;
}

export function formatCost(usd: number | null | undefined): string {
  return typeof usd === 'number' ? `$${usd.toFixed(4)}` : '-';
}
