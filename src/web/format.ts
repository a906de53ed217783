/** How numbers and times read on the page. */
import { formatUsd } from '../client/format.js';

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 2 : 1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${Math.round(seconds % 60)}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

/** A cost as the CLI shows it too (`formatUsd`), `—` when there is none. */
export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return '—';
  return formatUsd(usd);
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  const sameDay = date.toDateString() === new Date().toDateString();
  return sameDay ? date.toLocaleTimeString() : date.toLocaleString();
}

/** Milliseconds between two ISO times; `end` null: until `now`. */
export function spanMs(start: string | null, end: string | null, now: number): number | null {
  if (!start) return null;
  return (end ? Date.parse(end) : now) - Date.parse(start);
}
