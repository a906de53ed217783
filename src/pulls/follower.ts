/**
 * One look at a followed pull request (docs/decisions.md, "Pull request reactions"): its state,
 * head commit and checks from gh; a reaction under way taken a step further; then, with none under
 * way and nobody asked yet, failed checks and requested changes answered — checks first, once every
 * check of the head commit running has finished, so one reaction carries every failure of that
 * commit; a check running past its bound asks a person instead (stuck.ts). A
 * merged pull request has its runs' worktrees cleaned up (a closed one keeps them), and is followed no more.
 */

import type { RunRecord } from '../runs/index.js';
import { excerptOf } from './ci-log.js';
import type { Follows } from './deps.js';
import { actionsRunOf, failedLog, unresolvedComments, viewPull, type PullSnapshot } from './github.js';
import type { CheckState, PullCheck, PullFollow } from './records.js';
import { Reactions, stillToCome } from './reactions.js';
import { countedReactions } from './resume.js';
import { IN_PROGRESS } from './schedule.js';
import { DEFAULT_CHECK_STUCK_MS, pendingSinceOf, stuckReason } from './stuck.js';
import { ciMessage, reviewMessage, type CheckFailure } from './texts.js';

/** Failed checks whose logs go into one reaction's message; review comments given to one reaction. */
export const MAX_CHECKS_PER_REACTION = 5;
export const MAX_COMMENTS_PER_REACTION = 30;

const CLOSED_KEPT = 'the pull request was closed without merging: its worktree and branch are kept for a person';

const inProgress = (follow: PullFollow) => follow.reactions.find((r) => (IN_PROGRESS as readonly string[]).includes(r.state));

/** What the run's page shows of a look: a change of it is announced (`pr_updated`), else the page would show it stale. */
const shown = (follow: PullFollow) =>
  JSON.stringify([follow.state, follow.headCommit, follow.checks.map((c) => [c.name, c.state, c.url]), follow.lastError !== null]);

export class PullFollower {
  readonly #reactions: Reactions;

  constructor(private readonly follows: Follows) {
    this.#reactions = new Reactions(follows);
  }

  /** Looks once; resolves to the follow as saved. */
  async look(follow: PullFollow, run: RunRecord): Promise<PullFollow> {
    const previous = follow;
    let pr: PullSnapshot;
    try {
      pr = await viewPull(this.follows.site, follow.number, follow.repo);
    } catch (error) {
      this.follows.deps.logger.warn('pulls.look_failed', { runId: follow.runId, number: follow.number, error: (error as Error).message });
      return this.#updated(previous, await this.follows.save(follow, { lastError: (error as Error).message }), run);
    }
    // Infrastructure failures already reported keep their words while the check is still red; a
    // running check keeps when svc first saw it running on this head (stuck.ts).
    const now = this.follows.now();
    const checks: PullCheck[] = pr.checks.map(({ name, state, url, running }) => {
      const before = follow.checks.find((c) => c.name === name);
      const sameHead = follow.headCommit === pr.headCommit;
      return {
        name,
        state,
        url,
        ...(before?.infrastructure && state === 'failure' && sameHead ? { infrastructure: before.infrastructure } : {}),
        ...(state === 'pending' && running ? { pendingSince: pendingSinceOf(before, sameHead, now) } : {}),
      };
    });
    follow = await this.#updated(previous, await this.follows.save(follow, { state: pr.state, headCommit: pr.headCommit, checks, lastError: null }), run);
    const current = inProgress(follow);
    if (current && pr.state === 'open') {
      // Finished or not, the rest waits for the next look: a push just moved the head, and `pr` is
      // what GitHub said before it (its head, its checks, its review).
      return this.#reactions.advance(follow, current, run, pr);
    } else if (current && current.state !== 'starting') {
      // Merged or closed: its result has nowhere to go; clean-up waits for the run to end.
      const followOn = await this.follows.deps.engine.find(current.followOnRunId);
      if (followOn && stillToCome(followOn)) return follow;
    }
    if (pr.state !== 'open') return this.#closed(follow, pr, run);
    if (follow.needsHuman) return follow;
    // A check running for ever would hold the failed checks' reaction back unseen: a person is asked
    // instead. Only a running one: a queued, expected or waiting check holds nothing back (#onChecks).
    const stuck = stuckReason(follow, now, this.follows.deps.checkStuckMs ?? DEFAULT_CHECK_STUCK_MS);
    if (stuck) return this.#reactions.needsHuman(follow, run, stuck);
    const before = follow.reactions.length;
    follow = await this.#onChecks(follow, pr, run);
    if (follow.reactions.length > before || follow.needsHuman) return follow;
    return this.#onReview(follow, pr, run);
  }

  /** `after` as saved, announced (`pr_updated`) when the look changed what the run's page shows. */
  async #updated(before: PullFollow, after: PullFollow, run: RunRecord): Promise<PullFollow> {
    if (shown(before) === shown(after)) return after;
    const checks: Partial<Record<CheckState, number>> = {};
    for (const check of after.checks) checks[check.state] = (checks[check.state] ?? 0) + 1;
    await this.follows.emit(run, 'pr_updated', {
      number: after.number,
      state: after.state,
      commit: after.headCommit,
      checks,
      lookFailed: after.lastError !== null,
    });
    return after;
  }

  /** Every check of the head commit finished and some failed: the CI's own failures reported, the code's sent to a follow-on run. */
  async #onChecks(follow: PullFollow, pr: PullSnapshot, run: RunRecord): Promise<PullFollow> {
    const failed = pr.checks.filter((c) => c.state === 'failure');
    // A check still running may fail too: waited for. One queued, expected (a required check nobody
    // reports) or waiting (an environment's approval) may never start, so it does not hold the failures back.
    if (failed.length === 0 || pr.checks.some((c) => c.state === 'pending' && c.running)) return follow;
    // Counted per head commit: a check run again on the same commit is not a new reaction (since the
    // last resume: a person who says go on asks for one, resume.ts).
    if (countedReactions(follow).some((r) => r.kind === 'ci' && r.commit === pr.headCommit)) return follow;
    const unreported = failed.filter((c) => !follow.reported.includes(`${pr.headCommit}:${c.name}`));
    if (unreported.length === 0) return follow;
    // A bounded number of logs and excerpts per reaction; the others are named in its message.
    const fresh = unreported.slice(0, MAX_CHECKS_PER_REACTION);
    const failures: CheckFailure[] = [];
    const reported: string[] = [];
    let checks = follow.checks;
    // Checks of one job (or one run, its job unknown) share a log: fetched once this look.
    const logs = new Map<string, Promise<string | null>>();
    for (const check of fresh) {
      const actions = actionsRunOf(check.url);
      let log: string | null = null;
      if (actions) {
        const key = `${actions.runId}/${actions.jobId ?? ''}`;
        if (!logs.has(key)) {
          logs.set(
            key,
            failedLog(this.follows.site, follow.repo, actions).catch((error: unknown) => {
              this.follows.deps.logger.warn('pulls.log_failed', { runId: follow.runId, check: check.name, error: (error as Error).message });
              return null;
            }),
          );
        }
        log = await logs.get(key)!;
      }
      const excerpt = log === null ? null : excerptOf(log, check.name);
      const fields = {
        number: follow.number,
        check: check.name,
        url: check.url,
        commit: pr.headCommit,
        failingStep: excerpt?.failingStep ?? null,
        excerpt: excerpt?.excerpt ?? null,
      };
      if (excerpt?.infrastructure) {
        reported.push(`${pr.headCommit}:${check.name}`);
        checks = checks.map((c) => (c.name === check.name ? { ...c, infrastructure: excerpt.infrastructure! } : c));
        await this.follows.emit(run, 'pr_check_failed', { ...fields, infrastructure: excerpt.infrastructure });
        continue;
      }
      failures.push({ check: check.name, url: check.url, failingStep: fields.failingStep, excerpt: fields.excerpt, tail: excerpt !== null && !excerpt.found });
      await this.follows.emit(run, 'pr_check_failed', fields);
    }
    if (reported.length > 0) follow = await this.follows.save(follow, { reported: [...follow.reported, ...reported], checks });
    if (failures.length === 0) return follow;
    const names = failures.map((f) => f.check);
    return this.#reactions.react(
      follow,
      run,
      {
        kind: 'ci',
        key: `ci:${pr.headCommit}:${names.join(',')}`,
        commit: pr.headCommit,
        checks: names,
        comments: [],
        message: ciMessage(
          follow,
          pr.headCommit,
          failures,
          unreported.slice(MAX_CHECKS_PER_REACTION).map((c) => c.name),
        ),
      },
      pr,
    );
  }

  /**
   * Changes requested: the unresolved comments no reaction was given yet go to one follow-on run;
   * never svc's own replies (recorded in `ownComments`, or by svc's gh user with its marker: github.ts).
   */
  async #onReview(follow: PullFollow, pr: PullSnapshot, run: RunRecord): Promise<PullFollow> {
    if (!pr.changesRequested) return follow;
    let comments;
    try {
      comments = await unresolvedComments(this.follows.site, follow.repo, follow.number);
    } catch (error) {
      return this.follows.save(follow, { lastError: (error as Error).message });
    }
    // At most MAX_COMMENTS_PER_REACTION: the rest are new comments to the next reaction.
    const fresh = comments.filter((c) => !follow.handledComments.includes(c.id) && !follow.ownComments.includes(c.id)).slice(0, MAX_COMMENTS_PER_REACTION);
    if (fresh.length === 0) return follow;
    const ids = fresh.map((c) => c.id);
    await this.follows.emit(run, 'pr_changes_requested', {
      number: follow.number,
      commit: pr.headCommit,
      comments: fresh.map((c) => ({ id: c.id, path: c.path, line: c.line })),
    });
    return this.#reactions.react(
      follow,
      run,
      {
        kind: 'review',
        key: `review:${ids.join(',')}`,
        commit: pr.headCommit,
        checks: [],
        comments: ids,
        threads: [...new Set(fresh.map((c) => c.thread))],
        message: reviewMessage(follow, pr.headCommit, fresh),
      },
      pr,
    );
  }

  /** Merged: each run of the chain cleaned up as far as is safe; closed: each kept, said why; the follow ends. */
  async #closed(follow: PullFollow, pr: PullSnapshot, run: RunRecord): Promise<PullFollow> {
    const runIds = [...new Set([follow.runId, ...follow.reactions.filter((r) => r.state !== 'starting').map((r) => r.followOnRunId)])];
    const cleanup = [];
    // Closed without merging: the work is nobody's yet — a person may reopen the pull request or take
    // its commits — so nothing is removed (`svc workspace cleanup --merged` removes merged ones only).
    if (pr.state === 'closed') cleanup.push(...runIds.map((runId) => ({ runId, removed: false, reason: CLOSED_KEPT })));
    else
      for (const runId of runIds) {
        cleanup.push(
          await this.follows.deps.workspaces
            .cleanupPushed(runId, pr.headCommit)
            .catch((error: unknown) => ({ runId, removed: false, reason: (error as Error).message })),
        );
      }
    const saved = await this.follows.save(follow, { cleanup, active: false });
    await this.follows.emit(run, 'pr_merged', { number: follow.number, merged: pr.state === 'merged', commit: pr.headCommit, cleanup });
    return saved;
  }
}
