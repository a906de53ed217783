import { deniedToolCalls, formatUsd, type RunView } from '../../../client/index.js';
import { EXIT } from '../../exit-codes.js';

/**
 * The exit code a finished (or paused) run maps to (docs/contract.md, "Exit codes"). A run whose agent was
 * refused tools completed without doing what it was asked: never 0, and not 1 either (nothing failed).
 */
export function exitCodeForRun(run: Pick<RunView, 'status' | 'nodes'>): number {
  switch (run.status) {
    case 'completed':
      return deniedToolCalls(run).count > 0 ? EXIT.toolsDenied : EXIT.ok;
    case 'cancelled':
    case 'abandoned':
      return EXIT.cancelled;
    case 'paused':
    case 'waiting':
      return EXIT.paused;
    default:
      return EXIT.failed;
  }
}

/** What a wait node waits for: `until <time>`, `for 'build_finished'`, `for 'build_finished' until <time>`. */
export function waitText(wait: { until?: string; event?: string }): string {
  return [wait.event ? `for '${wait.event}'` : undefined, wait.until ? `until ${wait.until}` : undefined].filter(Boolean).join(' ');
}

/** The waiting nodes of a `run_waiting` event: `nap until <time>; build for 'build_finished'`. */
export function waitingText(nodes: ReadonlyArray<{ nodeId: string; until?: string; event?: string }>): string {
  return nodes.map((node) => `${node.nodeId} ${waitText(node)}`).join('; ');
}

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '-';
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes}m${Math.round((ms % 60_000) / 1000)}s`;
}

/** A cost as the dashboard shows it too (`formatUsd`), `-` when there is none. */
export function formatCost(usd: number | null | undefined): string {
  return typeof usd === 'number' ? formatUsd(usd) : '-';
}

/**
 * A run's spend against its cap (`spent $0.8000 of $1.0000`), and when an agent reported no cost
 * (codex) that the figure is partial; '' for an uncapped run whose costs are all known.
 */
export function formatSpend(run: { maxCostUsd?: number | null; spentUsd?: number; costPartial?: boolean }): string {
  const partial = run.costPartial ? ' (partial: an agent reported no cost, which the cap cannot see)' : '';
  if (typeof run.maxCostUsd !== 'number') return partial ? `spent ${formatCost(run.spentUsd ?? 0)}${partial}` : '';
  return `spent ${formatCost(run.spentUsd ?? 0)} of ${formatCost(run.maxCostUsd)} cap${partial}`;
}

/** `(from the pool)` or `(from the setup cache)` after a setup step that did not run its script. */
export function setupSourceNote(source: string | undefined): string {
  return source === 'pool' ? ' (from the pool)' : source === 'cache' ? ' (from the setup cache)' : '';
}
