/**
 * Following a run's pull request, the use case whole (docs/decisions.md, "Pull request reactions"):
 * a run's pull request is followed (`follow`: the one `svc runs pr` opened, or the open one of its
 * branch), looked at on a schedule (schedule.ts) and at once when GitHub delivers a webhook about
 * it (`delivered`), by one process at a time (the coordination's `pulls`); the run detail shows it
 * (`detail`). Routes only parse and format.
 */

import { DomainError } from '../shared/errors.js';
import type { RunRecord } from '../runs/index.js';
import { FollowChanged, Follows, type PullDeps } from './deps.js';
import { PullFollower } from './follower.js';
import { pullOfUrl, viewPull, type PullSnapshot } from './github.js';
import { toPullView, type PullFollow, type PullView } from './records.js';
import { readGitHubDelivery } from './github-webhook.js';
import { resumePatch } from './resume.js';
import { IN_PROGRESS } from './schedule.js';

/** What a reaction runs unless the original workflow names its own (bundled/workflows/). */
export const DEFAULT_ON_CI_FAILURE = 'fix-ci';
export const DEFAULT_ON_REVIEW = 'address-review';
export const DEFAULT_MAX_FIX_CYCLES = 3;

/** Follows looked at per timer tick at most; the rest are due at the next tick. */
const DUE_BATCH = 20;
/** How often the timer asks for follows due, when `SVC_PR_POLL_MS` does not say. */
const TICK_MS = 5_000;
/** Reads and saves of a resume before it gives up to looks that kept changing the follow. */
const RESUME_TRIES = 8;

/** The original workflow's reaction keys, from the definition the run took (validated then). */
function reactionSettings(run: RunRecord): Pick<PullFollow, 'onCiFailure' | 'onReview' | 'maxFixCycles'> {
  const written = typeof run.definition === 'object' && run.definition !== null ? (run.definition as Record<string, unknown>) : {};
  return {
    onCiFailure: typeof written.on_ci_failure === 'string' ? written.on_ci_failure : DEFAULT_ON_CI_FAILURE,
    onReview: typeof written.on_review === 'string' ? written.on_review : DEFAULT_ON_REVIEW,
    maxFixCycles: typeof written.max_fix_cycles === 'number' ? written.max_fix_cycles : DEFAULT_MAX_FIX_CYCLES,
  };
}

export interface PullDetail {
  pr?: PullView;
  needsHuman?: true;
  needsHumanReason?: string;
}

export class PullFollowing {
  readonly #follows: Follows;
  readonly #follower: PullFollower;
  readonly #looking = new Map<string, Promise<void>>();
  readonly #again = new Set<string>();
  /** Follow-on runs of reactions under way, and the run whose pull request each answers: its end is looked at at once. */
  readonly #reacting = new Map<string, string>();
  #timer: NodeJS.Timeout | undefined;
  /** Only a started one (a server's) looks: a CLI process records a follow and leaves it to the server. */
  #started = false;
  #closed = false;

  constructor(private readonly deps: PullDeps) {
    this.#follows = new Follows(deps);
    this.#follower = new PullFollower(this.#follows);
  }

  /** Looks at what is due now and at every tick from then on: what a stopped process followed is taken up where it stopped. */
  start(): void {
    this.#started = true;
    void this.#sweep();
    this.#timer = setInterval(() => void this.#sweep(), Math.min(this.deps.pollMs ?? TICK_MS, TICK_MS));
    this.#timer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    // A gh call waits up to 5 minutes; the looks under way end on its failure instead (saved as a lastError, or not at all).
    this.#follows.stop();
    await Promise.allSettled([...this.#looking.values()]);
  }

  /**
   * Follows the run's pull request: the one `svc runs pr` recorded, else the one gh finds for its
   * branch. 409 `no_worktree` for a run without a branch, `pr_not_found` when gh knows none,
   * `gh_unavailable` without gh. Following it again answers the follow there is.
   */
  async follow(runId: string): Promise<PullFollow> {
    const { engine, repository } = this.deps;
    const run = await engine.find(runId);
    if (!run) throw new DomainError('run_not_found', `No run '${runId}'.`);
    if (!run.branch || !run.workspaceId) {
      throw new DomainError('no_worktree', `Run ${run.id} has no branch of its own (it ran outside a git workspace), so it has no pull request to follow.`, {
        runId: run.id,
      });
    }
    const existing = await repository.get(run.id);
    if (existing) return existing;
    const pr = await this.#find(run, run.branch);
    const now = this.#follows.now().toISOString();
    const follow: PullFollow = {
      runId: run.id,
      workspaceId: run.workspaceId,
      number: pr.number,
      url: pr.url,
      repo: pr.repo,
      branch: run.branch,
      headRunId: run.id,
      state: 'open',
      headCommit: null,
      checks: [],
      reactions: [],
      handledComments: [],
      ownComments: [],
      reported: [],
      ...reactionSettings(run),
      needsHuman: null,
      cleanup: null,
      active: true,
      // Looked at at once: its checks may have finished already.
      nextLookAt: now,
      lastError: null,
      followedAt: now,
      updatedAt: now,
    };
    const added = (await repository.add(follow)) ?? (await repository.get(run.id))!;
    this.wake(run.id);
    return added;
  }

  /**
   * A person's "go on" (resume.ts): `needs_human` cleared, reactions counted afresh (up to
   * `maxFixCycles` when given), a `pr_resumed` event naming `by`, and a look at once. 409
   * `pr_not_followed` for a run without a followed pull request (or one merged or closed),
   * `not_needs_human` when nobody was asked.
   */
  async resume(runId: string, input: { maxFixCycles?: number | undefined; by: string }): Promise<PullFollow> {
    const { engine, repository } = this.deps;
    const run = await engine.find(runId);
    if (!run) throw new DomainError('run_not_found', `No run '${runId}'.`);
    for (let tries = 1; ; tries += 1) {
      const follow = await repository.get(run.id);
      if (!follow?.active) {
        const why = follow ? `its pull request #${follow.number} is ${follow.state} and followed no more` : 'svc follows no pull request of it';
        throw new DomainError('pr_not_followed', `Run ${run.id} has nothing to resume: ${why} (svc runs pr opens and follows one).`, { runId: run.id });
      }
      if (!follow.needsHuman) {
        throw new DomainError('not_needs_human', `Pull request #${follow.number} of run ${run.id} does not need a person: svc reacts to it by itself.`, {
          runId: run.id,
        });
      }
      const resumed = resumePatch(follow, input.maxFixCycles, this.#follows.now());
      try {
        const saved = await this.#follows.save(follow, resumed, { lookNow: true });
        await this.#follows.emit(run, 'pr_resumed', { number: follow.number, by: input.by, reason: follow.needsHuman, maxFixCycles: saved.maxFixCycles });
        this.wake(run.id);
        return saved;
      } catch (error) {
        // A look saved it meanwhile (it saves several times a look): read again and decide again.
        if (!(error instanceof FollowChanged)) throw error;
        if (tries >= RESUME_TRIES) {
          throw new DomainError('pr_busy', `Pull request #${follow.number} of run ${run.id} changed at each of ${tries} tries; try again.`, { runId: run.id });
        }
        await new Promise((resolve) => setTimeout(resolve, 50 * tries));
      }
    }
  }

  /** What the run detail adds: its pull request, and whether a person is needed. */
  async detail(runId: string): Promise<PullDetail> {
    const follow = await this.deps.repository.get(runId);
    if (!follow) return {};
    return { pr: toPullView(follow), ...(follow.needsHuman ? { needsHuman: true, needsHumanReason: follow.needsHuman } : {}) };
  }

  /**
   * A GitHub webhook delivery (github-webhook.ts checks it): the follows of the pull requests and
   * branches it names are looked at now. Resolves to their runs, or why it was skipped.
   */
  async delivered(
    raw: Uint8Array,
    signature: string | null,
    event: string | null,
    contentType: string | null = null,
  ): Promise<{ runs: string[] } | { skipped: string }> {
    const delivery = readGitHubDelivery(this.deps.webhookSecret, raw, signature, event, contentType);
    if ('skipped' in delivery) return delivery;
    const runIds = new Set<string>();
    for (const ref of delivery.refs) for (const follow of await this.deps.repository.find(ref)) runIds.add(follow.runId);
    for (const runId of runIds) this.wake(runId);
    return { runs: [...runIds] };
  }

  /** A run settled (ended or paused): when it is a reaction's follow-on run, its pull request is looked at now. */
  runSettled(runId: string): void {
    const followed = this.#reacting.get(runId);
    if (followed) this.wake(followed);
  }

  /** The run was deleted: its follow goes. */
  async forget(runId: string): Promise<void> {
    await this.deps.repository.remove(runId);
  }

  /** Looks at the run's pull request now (if this process follows it), one look at a time per run. */
  wake(runId: string): void {
    if (!this.#started || this.#closed) return;
    if (this.#looking.has(runId)) {
      this.#again.add(runId);
      return;
    }
    const looking = this.#look(runId)
      .catch((error: unknown) => {
        if (!(error instanceof FollowChanged)) this.deps.logger.warn('pulls.look_failed', { runId, error: (error as Error).message });
      })
      .finally(() => {
        this.#looking.delete(runId);
        if (this.#again.delete(runId)) this.wake(runId);
      });
    this.#looking.set(runId, looking);
  }

  /**
   * The pull request named by the run's record (`svc runs pr` opened it: read from its URL, gh is
   * asked at the first look), else the open one gh finds for its branch, checked to be that branch's.
   */
  async #find(run: RunRecord, branch: string): Promise<{ number: number; url: string; repo: string }> {
    const recorded = run.pullRequest ? pullOfUrl(run.pullRequest.url) : undefined;
    if (recorded) return { ...recorded, url: run.pullRequest!.url };
    const cwd = (await this.deps.workspaces.landingSite(run.id)).environment.repository;
    let pr: PullSnapshot;
    try {
      pr = await viewPull({ ...this.#follows.site, cwd }, branch);
    } catch (error) {
      if (error instanceof DomainError) throw error;
      throw new DomainError('pr_not_found', `No pull request of ${branch} could be read: ${(error as Error).message}`, { runId: run.id });
    }
    const found = pullOfUrl(pr.url);
    if (pr.branch !== branch || !found) {
      throw new DomainError('pr_not_found', `Pull request ${pr.url} is of branch ${pr.branch}, not of run ${run.id}'s ${branch}.`, { runId: run.id });
    }
    if (pr.state !== 'open')
      throw new DomainError('pr_not_found', `Pull request ${pr.url} of ${branch} is ${pr.state}: there is nothing to follow.`, { runId: run.id });
    return { ...found, url: pr.url };
  }

  async #sweep(): Promise<void> {
    try {
      for (const follow of await this.deps.repository.due(this.#follows.now().toISOString(), DUE_BATCH)) {
        if (!this.#looking.has(follow.runId)) this.wake(follow.runId);
      }
    } catch (error) {
      this.deps.logger.warn('pulls.sweep_failed', { error: (error as Error).message });
    }
  }

  async #look(runId: string): Promise<void> {
    const { repository, coordination, engine } = this.deps;
    if (!(await coordination.hold(runId))) return;
    const follow = await repository.get(runId);
    if (!follow?.active) return coordination.release(runId);
    const run = await engine.find(runId);
    // Its run was deleted: nothing is left to show a reaction on.
    if (!run) {
      await repository.remove(runId);
      return coordination.release(runId);
    }
    const after = await this.#follower.look(follow, run);
    for (const reaction of after.reactions) {
      if (IN_PROGRESS.some((state) => state === reaction.state)) this.#reacting.set(reaction.followOnRunId, runId);
      else this.#reacting.delete(reaction.followOnRunId);
    }
    if (!after.active) await coordination.release(runId);
  }
}
