/**
 * What `svc workspace cleanup` removes and what it keeps (docs/decisions.md, "Clean-up by outcome"): by age
 * (`--older-than`), by outcome (`--merged`: the run's branch holds nothing the default branch
 * lacks), or both. The service walks the environments and removes; this decides, one at a time.
 */

import * as z from 'zod';
import { DomainError } from '../shared/errors.js';
import { branchMergeState } from './branch-merged.js';
import { EnvironmentViewSchema, PoolWorktreeSchema, type Environment, type EnvironmentView } from './records.js';
import type { WorktreeGit } from './worktrees.js';

export interface CleanupRule {
  /** Only runs that ended before this; none = any age (with `merged` only). */
  before?: Date | undefined;
  /** Only runs whose branch is merged into the workspace's default branch. */
  merged?: boolean | undefined;
  /** With `merged`: remove unmerged branches too. */
  force?: boolean | undefined;
}

export const KEEP_REASONS = ['active', 'too_recent', 'unmerged', 'check_failed'] as const;

export const KeptEnvironmentSchema = EnvironmentViewSchema.extend({
  reason: z
    .enum(KEEP_REASONS)
    .describe(
      'active: its run is not finished (running, pending, paused…); too_recent: ended after olderThan; unmerged: its branch has commits not in the default branch (remove with force); check_failed: git could not tell (remove with force)',
    ),
  message: z.string().describe('the reason in words'),
});
export type KeptEnvironment = z.infer<typeof KeptEnvironmentSchema>;

export const CleanupResultSchema = z.object({
  removed: z
    .array(EnvironmentViewSchema)
    .describe('worktrees and svc/* branches removed (with an age-only rule, other homes’ too: their servers remove them when told)'),
  kept: z.array(KeptEnvironmentSchema).describe('environments left in place, each with why'),
  elsewhere: z
    .array(EnvironmentViewSchema)
    .describe(
      'with merged: environments in another server’s home (shared database); only its servers can read the branch, and they apply the same rule when told',
    ),
  pool: z
    .array(PoolWorktreeSchema)
    .describe("worktrees of the workspaces' pools removed from this server's home, whatever the rule (refilled by the next run on the workspace)"),
});
export type CleanupResult = z.infer<typeof CleanupResultSchema>;

/** 400 for an age past what a Date holds (`99999999999d`), or an age-only rule without its age. */
export function assertCleanupRule(rule: CleanupRule): void {
  if ((rule.before && Number.isNaN(rule.before.getTime())) || (!rule.merged && !rule.before))
    throw new DomainError('invalid_request', 'The clean-up age is out of range.', [{ path: 'olderThan', message: 'out of range' }]);
}

const keep = (view: EnvironmentView, reason: KeptEnvironment['reason'], message: string): KeptEnvironment => ({ ...view, reason, message });

/** The verdict that needs no git: a run that can still change is never touched; a too-recent one waits. */
export function keptByState(view: EnvironmentView, rule: CleanupRule): KeptEnvironment | null {
  if (view.status !== 'ended') return keep(view, 'active', `run ${view.run_id} is not finished`);
  // A run that is gone has no end time: its worktree counts from when it was made.
  const endedAt = view.ended_at ?? view.created_at;
  if (rule.before && Date.parse(endedAt) >= rule.before.getTime())
    return keep(view, 'too_recent', `run ${view.run_id} ended at ${endedAt}, after the age limit`);
  return null;
}

/** The verdict on the branch, for a `merged` rule (call it where the branch's repository is: this server's home). */
export async function keptByBranch(
  environment: Environment,
  view: EnvironmentView,
  defaultBranch: string,
  rule: CleanupRule,
  git: WorktreeGit,
): Promise<KeptEnvironment | null> {
  if (!rule.merged || rule.force) return null;
  const state = await branchMergeState(environment.repository, environment.branch, defaultBranch, git);
  if (state.merged) return null;
  return keep(view, state.reason, `${state.message}; kept (--force removes it)`);
}

/** What the clean-up needs of the service that holds the environments. */
export interface CleanupSite {
  view(environment: Environment): Promise<EnvironmentView>;
  /** Whether this server's home holds it (docs/scaling.md): only then can it read the branch and remove it. */
  isOwn(environment: Environment): boolean;
  /** Runs `work` with the environment's workspace locked (placing a run waits meanwhile). */
  locked<T>(environment: Environment, work: () => Promise<T>): Promise<T>;
  defaultBranch(workspaceId: string): Promise<string>;
  /** Removes the worktree, its branch and the record (with the lock held). */
  remove(environment: Environment): Promise<void>;
  git: WorktreeGit;
  /** false when applying another server's announcement: others' environments are theirs to list. */
  announce: boolean;
}

/**
 * Sorts `environments` into removed, kept (with why) and another home's, removing this home's as
 * it goes; `elsewhere` says whether other homes hold any to be told about.
 */
export async function cleanEnvironments(
  environments: Environment[],
  rule: CleanupRule,
  site: CleanupSite,
): Promise<{ result: CleanupResult; elsewhere: boolean }> {
  const result: CleanupResult = { removed: [], kept: [], elsewhere: [], pool: [] };
  let elsewhere = false;
  for (const environment of environments) {
    if (!site.isOwn(environment)) {
      const view = await site.view(environment);
      const kept = keptByState(view, rule);
      if (kept) result.kept.push(kept);
      else if (site.announce) {
        // Its servers remove it when told. By age alone the verdict is the record's, so it is listed
        // as removed; by outcome only they can read the branch.
        (rule.merged ? result.elsewhere : result.removed).push(view);
        elsewhere = true;
      }
      continue;
    }
    // Decided with the lock held: a run resumed meanwhile is active again, and keeps its worktree.
    const outcome = await site.locked(environment, async () => {
      const view = await site.view(environment);
      const kept = keptByState(view, rule) ?? (await keptByBranch(environment, view, await site.defaultBranch(environment.workspace_id), rule, site.git));
      if (!kept) await site.remove(environment);
      return { view, kept };
    });
    if (outcome.kept) result.kept.push(outcome.kept);
    else result.removed.push(outcome.view);
  }
  return { result, elsewhere };
}

/**
 * The rule as announced to the other servers (coordination/postgres-homes.ts), and back. A `merged` rule carries its age
 * as `endedBefore`, never `before`: a server from before `merged` existed reads `before` alone and
 * would remove unmerged branches by age; without it, it rejects the change and removes nothing.
 */
export function cleanupRuleToChange(rule: CleanupRule): CleanupChange {
  const age = rule.before?.toISOString();
  if (!rule.merged) return { before: age! };
  return { merged: true, ...(rule.force ? { force: true } : {}), ...(age ? { endedBefore: age } : {}) };
}

export function cleanupRuleOf(change: CleanupChange): CleanupRule {
  if (change.merged) return { merged: true, force: change.force === true, ...(change.endedBefore ? { before: new Date(change.endedBefore) } : {}) };
  // An age-only rule always names its age: without one, nothing would be kept for being recent.
  return { before: new Date(change.before ?? Number.NaN) };
}

export interface CleanupChange {
  before?: string;
  endedBefore?: string;
  merged?: boolean;
  force?: boolean;
}
