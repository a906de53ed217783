import { DomainError } from '../../shared/errors.js';
import type { EventSpec } from '../model/lifecycle.js';
import type { RunRecord } from '../model/types.js';

/**
 * A run's spend cap (docs/decisions.md, "Spend cap"): every cost an agent reports is added to
 * the run's `spentUsd` — every attempt of every node, across resumes — and checked against its
 * `maxCostUsd`. An agent that reports no cost (codex) marks the run `costPartial`: its spend is
 * unknown, never counted as 0.
 */

/** The share of the cap at which `budget_warning` says the run is getting close. */
export const BUDGET_WARNING_SHARE = 0.8;

export const BUDGET_EXCEEDED = 'budget_exceeded';

/** The effective cap of a new run: the smaller of the workflow's and the start's; null when neither sets one. */
export function startingCap(workflowCap: number | undefined, requestCap: number | undefined): number | null {
  const caps = [workflowCap, requestCap].filter((cap): cap is number => cap !== undefined);
  return caps.length ? Math.min(...caps) : null;
}

/** What is left of the cap (never below 0); what claude gets as `--max-budget-usd`. */
export function remainingBudget(run: Pick<RunRecord, 'maxCostUsd' | 'spentUsd'>): number {
  return Math.max(0, (run.maxCostUsd ?? Infinity) - (run.spentUsd ?? 0));
}

const capReached = (spent: number, cap: number) => spent >= cap;

/**
 * Adds one agent call's reported cost to the run (`undefined`: a node with no agent, nothing to
 * count; `null`: the agent reported none). Returns the run's next snapshot, the events to emit, in
 * order, and whether the run's spend has now reached its cap. One report may cross both 80% and the
 * cap: both events.
 */
export function recordSpend(run: RunRecord, nodeId: string, costUsd: number | null | undefined): { run: RunRecord; events: EventSpec[]; exceeded: boolean } {
  const cap = run.maxCostUsd ?? null;
  const events: EventSpec[] = [];
  if (costUsd === undefined) return { run, events, exceeded: false };
  const before = run.spentUsd ?? 0;
  if (costUsd === null) {
    // Said once per run: from here on the cap cannot see all of the run's spend.
    if (!run.costPartial && cap !== null) events.push({ type: 'budget_warning', fields: { reason: 'cost_unknown', spentUsd: before, capUsd: cap, nodeId } });
    return { run: { ...run, costPartial: true }, events, exceeded: false };
  }
  const after = before + costUsd;
  const spent = { ...run, spentUsd: after };
  if (cap === null) return { run: spent, events, exceeded: false };
  if (before < cap * BUDGET_WARNING_SHARE && after >= cap * BUDGET_WARNING_SHARE)
    events.push({ type: 'budget_warning', fields: { reason: 'threshold', spentUsd: after, capUsd: cap, nodeId } });
  const exceeded = !capReached(before, cap) && capReached(after, cap);
  if (exceeded) events.push({ type: 'budget_exceeded', fields: { spentUsd: after, capUsd: cap, nodeId } });
  return { run: spent, events, exceeded };
}

/** The message of a run stopped by its cap. */
export const budgetStopMessage = (run: RunRecord) =>
  `budget exceeded: spent $${(run.spentUsd ?? 0).toFixed(4)} of a $${(run.maxCostUsd ?? 0).toFixed(4)} cap; resume with a higher cap (maxCostUsd / --max-cost)`;

/**
 * A resume's cap: the new one replaces the run's; a run whose spend has reached its cap (the one it
 * keeps, or the new one) would stop again at once, so it is refused (409 `budget_exceeded`).
 */
export function assertResumableSpend(run: RunRecord, newCap: number | undefined): void {
  const cap = newCap ?? run.maxCostUsd ?? null;
  const spent = run.spentUsd ?? 0;
  if (cap === null || !capReached(spent, cap)) return;
  throw new DomainError(
    BUDGET_EXCEEDED,
    `Run ${run.id} has spent $${spent.toFixed(4)}, which reaches its ${newCap === undefined ? '' : 'new '}cap of $${cap.toFixed(4)}; resume it with maxCostUsd (svc resume --max-cost) above what it spent.`,
    { spentUsd: spent, capUsd: cap },
  );
}
