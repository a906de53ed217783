/**
 * Landing the front of one target's queue (docs/decisions.md, "Landing queue"). The head is built on
 * the target's current tip from git's objects (a merge or a squash; a conflict touches nothing) and
 * verified (verify-entry.ts); only when that passes does the target move, by compare-and-set, to
 * exactly that commit — the user's checkout with it when it has the target checked out and is
 * clean. A dirty checkout pauses the queue.
 *
 * With `queue: {parallel: N}` the next entries are verified at the same time, each built on the
 * candidate before it (a train), as merge queues in CI do. They land in order, each only once all
 * ahead of it landed, so each lands on exactly the commit it was built on and tested. A red entry
 * is the one that failed on a base that is now the target: it alone needs rework, and those behind
 * it, built on it, go back to waiting and are built again without it.
 *
 * Each step is recorded on the entry before the next: a restart (or `kill -9`) finds a `verifying`
 * entry with the commit it tested, and when the target already contains that commit the entry
 * landed and is only recorded, never landed twice.
 */

import { DomainError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { QueueCoordination } from '../coordination/index.js';
import { alreadyIn, assertCleanCheckout, branchContains, branchTips, landingCommit, moveBranch, recordLanding, type MergeRequest } from '../landing/index.js';
import type { RunRecord } from '../runs/index.js';
import { readWorktreeConfigAt, WorktreeConfigError, type LandingSite, type WorkspaceService } from '../workspaces/index.js';
import type { QueueEntry } from './records.js';
import type { QueueRepository } from './repository.js';
import { landingMessage } from './queue-text.js';
import { changeEntry, EntryChanged, type Step } from './entry-change.js';
import type { ReworkRuns } from './rework.js';
import { verifyCandidate, type Candidate, type Failure, type Verdict, type VerifyDeps } from './verify-entry.js';

export interface LanderDeps extends VerifyDeps {
  repository: QueueRepository;
  workspaces: Pick<WorkspaceService, 'landingSite' | 'envValues'>;
  coordination: QueueCoordination;
  logger: Logger;
}

/** How a candidate was settled: landed (the next may follow), or the step the queue takes now. */
type Settled = 'landed' | Step;

export class Lander {
  constructor(
    private readonly deps: LanderDeps,
    private readonly reworks: ReworkRuns,
    /** The server stopping: a verification under way is stopped and its entry left `verifying`. */
    private readonly stopping: AbortSignal,
  ) {}

  /** Lands the front of one target's queue (`queue`: its open entries in order), as far as it can now. */
  async land(queue: QueueEntry[]): Promise<Step> {
    const head = await this.#buildHead(queue[0]!);
    if (typeof head === 'string') return head;
    const train: Candidate[] = [head];
    const parallel = await this.#parallel(head);
    for (const entry of queue.slice(1, parallel)) {
      if (this.stopping.aborted) break;
      const next = await this.#buildOn(entry, train.at(-1)!);
      if (!next) break;
      train.push(next);
    }
    // Left `verifying` by a stopped process's longer train: they wait their turn again.
    for (const entry of queue.slice(train.length)) if (entry.state === 'verifying') await this.#requeue(entry);
    return this.#settle(train);
  }

  /** The head, built on the target's tip and saved `verifying`; or the step when it is landed, paused or needs rework already. */
  async #buildHead(entry: QueueEntry): Promise<Candidate | Step> {
    const run = await this.deps.runs.get(entry.runId);
    if (!run) {
      // Deleted while it waited: nothing is left to land.
      await this.deps.repository.remove(entry.runId);
      return 'done';
    }
    let site: LandingSite;
    try {
      site = await this.deps.workspaces.landingSite(run.id, { sharedCheckout: true });
    } catch (error) {
      if (error instanceof DomainError) return this.#rework(entry, run, { reason: error.message });
      throw error;
    }
    const request = mergeRequest(entry, run, site);
    // Landed already, by this process before it was stopped or by another that held the queue.
    if (entry.commit && (await branchContains(request.repository, entry.target, entry.commit, site.git))) return this.#landed(entry, entry.commit);
    const paused = await this.#dirty(entry, run, request, site);
    if (paused) return paused;
    try {
      const tips = await branchTips(request, site.git);
      if (await alreadyIn(tips.head, tips.old, request, site.git)) return this.#landed(entry, tips.old, true);
      const commit = await landingCommit(tips.old, tips.head, request, site.git);
      return { entry: await this.#verifying(entry, tips.old, commit), run, site, ahead: [] };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const files = error.code === 'merge_conflict' ? ((error.details as { files?: string[] } | undefined)?.files ?? []) : undefined;
      return this.#rework(entry, run, { reason: error.message, ...(files ? { files } : {}) }, site);
    }
  }

  /**
   * The entry built on `before`'s candidate, saved `verifying`; undefined when it cannot be (its run
   * gone, a conflict, its branch unreadable, its changes in `before` already). Whether that is the
   * entry's own fault shows once it is the head, built on the target itself: then it is decided.
   */
  async #buildOn(entry: QueueEntry, before: Candidate): Promise<Candidate | undefined> {
    const run = await this.deps.runs.get(entry.runId);
    if (!run) return undefined;
    try {
      const site = await this.deps.workspaces.landingSite(run.id, { sharedCheckout: true });
      const request = mergeRequest(entry, run, site);
      const base = before.entry.commit!;
      const { head } = await branchTips(request, site.git);
      if (await alreadyIn(head, base, request, site.git)) return undefined;
      const commit = await landingCommit(base, head, request, site.git);
      return { entry: await this.#verifying(entry, base, commit), run, site, ahead: [...before.ahead, before.run.id] };
    } catch (error) {
      if (error instanceof DomainError) return undefined;
      throw error;
    }
  }

  #verifying(entry: QueueEntry, base: string, commit: string): Promise<QueueEntry> {
    return this.#change(entry, { state: 'verifying', base, commit, attempts: entry.attempts + 1, reason: null, files: null, outputTail: null });
  }

  /** `queue.parallel` of the target's `.svc/worktree.yaml` at the head's base; 1 when it has none or cannot be used (its verification says why). */
  async #parallel(head: Candidate): Promise<number> {
    try {
      const config = await readWorktreeConfigAt(head.site.environment.repository, head.entry.base!, head.site.git);
      return config?.queue?.parallel ?? 1;
    } catch (error) {
      if (error instanceof WorktreeConfigError) return 1;
      throw error;
    }
  }

  /**
   * Verifies the train's candidates at once and settles them in order. A candidate is settled only
   * once everything ahead of it landed: its base is then the target, so what it lands is what it
   * tested, and a failure is its own. When one does not land, the train behind it stops.
   */
  async #settle(train: Candidate[]): Promise<Step> {
    const stop = new AbortController();
    const onStopping = () => stop.abort();
    if (this.stopping.aborted) stop.abort();
    this.stopping.addEventListener('abort', onStopping, { once: true });
    // Settled promises, never rejected ones: a later candidate's error waits for its turn to be seen.
    const verdicts = train.map((candidate) =>
      verifyCandidate(this.deps, candidate, stop.signal).then(
        (verdict) => ({ verdict }),
        (error: unknown) => ({ error }),
      ),
    );
    let landed = 0;
    try {
      for (; landed < train.length; landed += 1) {
        const result = await verdicts[landed]!;
        if ('error' in result) throw result.error;
        const settled = await this.#decide(train[landed]!, result.verdict);
        if (settled !== 'landed') return settled;
      }
      return 'done';
    } finally {
      stop.abort();
      this.stopping.removeEventListener('abort', onStopping);
      await Promise.all(verdicts);
      // Built on an entry that did not land: waits again, to be built on what the target becomes.
      if (!this.stopping.aborted) for (const behind of train.slice(landed + 1)) await this.#requeue(behind.entry);
    }
  }

  async #decide(candidate: Candidate, verdict: Verdict): Promise<Settled> {
    const { entry, run, site } = candidate;
    // Stopped with the server: left `verifying`, verified again at the next start.
    if (verdict.kind === 'stopped') return 'wait';
    if (verdict.kind === 'failed') return this.#rework(entry, run, verdict.failure, site);
    // Still ours to land, after a verification that may have taken minutes: the entry unchanged
    // (not removed with its run, not decided by another server) and the queue still held here.
    const current = await this.deps.repository.get(entry.runId);
    if (!current || current.updatedAt !== entry.updatedAt) throw new EntryChanged(`queue entry of ${entry.runId} changed while it was verified`);
    if (!(await this.deps.coordination.hold(entry.workspaceId))) throw new EntryChanged(`queue of ${entry.workspaceId} is held by another process now`);
    const request = mergeRequest(entry, run, site);
    try {
      await site.exclusive(async () => moveBranch(request, entry.base!, entry.commit!, await assertCleanCheckout(request, site.git), site.git));
    } catch (error) {
      const code = error instanceof DomainError ? error.code : undefined;
      // The target moved since the entry was built on it: built and verified again on its new tip.
      if (code === 'into_moved') return 'again';
      if (code === 'dirty_checkout') return this.#pause(entry, run, (error as Error).message);
      throw error;
    }
    await this.#landed(entry, entry.commit!);
    return 'landed';
  }

  /** Pauses the queue at `entry` while the target's checkout has changes not committed; undefined when it is clean. */
  async #dirty(entry: QueueEntry, run: RunRecord, request: MergeRequest, site: LandingSite): Promise<Step | undefined> {
    try {
      await assertCleanCheckout(request, site.git);
      return undefined;
    } catch (error) {
      if (error instanceof DomainError && error.code === 'dirty_checkout') return this.#pause(entry, run, error.message);
      throw error;
    }
  }

  /** The target has the entry's changes at `commit`: recorded on the run (once), then on the entry. */
  async #landed(entry: QueueEntry, commit: string, alreadyLanded = false): Promise<Step> {
    const { runs, logger } = this.deps;
    // Read again: the run may have changed while the entry waited (an approval, a merge by hand).
    const run = await runs.get(entry.runId);
    if (run && !(run.merged?.into === entry.target && run.merged.commit === commit)) {
      const merged = { into: entry.target, commit, strategy: entry.strategy, ...(alreadyLanded ? { alreadyLanded } : {}) };
      await recordLanding(runs, run, { merged }).catch((error: unknown) =>
        logger.warn('queue.record_failed', { runId: entry.runId, error: (error as Error).message }),
      );
    }
    await this.#change(entry, { state: 'landed', commit, reason: null, landedAt: new Date().toISOString() });
    if (run) {
      await this.#emit(run, 'queue_landed', {
        workspaceId: entry.workspaceId,
        target: entry.target,
        commit,
        ...(alreadyLanded ? { alreadyLanded: true as const } : {}),
      });
    }
    return 'done';
  }

  /**
   * Not landed: needs rework, told on the run. With `rework: agent` and rework runs left, a rework
   * run starts from the run's head (`site`: where its branch is, for the conflict's two sides); it
   * takes the entry's place once it completes (rework.ts).
   */
  async #rework(entry: QueueEntry, run: RunRecord, given: Failure, site?: LandingSite): Promise<Step> {
    // Bounded on the entry and its event: a conflict or a checkout can name thousands of files.
    const why = { ...given, reason: capReason(given.reason), ...(given.files ? { files: given.files.slice(0, REASON_FILES_MAX) } : {}) };
    const agent = site !== undefined && entry.rework.mode === 'agent' && entry.reworks < entry.rework.max;
    let changed = await this.#change(entry, {
      state: 'needs_rework',
      reason: why.reason,
      files: why.files ?? null,
      outputTail: why.outputTail ?? null,
      awaitingRework: agent,
      reworkRunId: null,
    });
    if (agent) changed = await this.reworks.start(changed, run, site);
    await this.#emit(run, 'queue_needs_rework', {
      workspaceId: entry.workspaceId,
      target: entry.target,
      ...why,
      ...(changed.reworkRunId ? { reworkRunId: changed.reworkRunId } : {}),
    });
    return 'done';
  }

  /** Told once per reason: the poll finds the same cause again and again until it goes. */
  async #pause(entry: QueueEntry, run: RunRecord, told: string): Promise<Step> {
    const reason = capReason(told);
    if (entry.state === 'paused' && entry.reason === reason) return 'wait';
    await this.#change(entry, { state: 'paused', reason });
    await this.#emit(run, 'queue_paused', { workspaceId: entry.workspaceId, target: entry.target, reason });
    return 'wait';
  }

  /** Back to waiting its turn, unless another process changed it meanwhile (then that one decides). */
  async #requeue(entry: QueueEntry): Promise<void> {
    await this.#change(entry, { state: 'queued', base: null, commit: null }).catch((error: unknown) => {
      if (!(error instanceof EntryChanged)) throw error;
    });
  }

  #change(entry: QueueEntry, patch: Partial<QueueEntry>): Promise<QueueEntry> {
    return changeEntry(this.deps.repository, entry, patch);
  }

  #emit: LanderDeps['runs']['emit'] = (run, type, fields) => this.deps.runs.emit(run, type, fields);
}

function mergeRequest(entry: QueueEntry, run: RunRecord, site: LandingSite): MergeRequest {
  return {
    repository: site.environment.repository,
    branch: site.environment.branch,
    into: entry.target,
    strategy: entry.strategy,
    message: landingMessage(run),
    runId: run.id,
  };
}

/** At most this many files on an entry that needs rework (its reason says how many more). */
const REASON_FILES_MAX = 100;
/** An entry's reason past this many characters is cut: git's messages list every file. */
const REASON_MAX_CHARS = 2000;

const capReason = (reason: string) =>
  reason.length <= REASON_MAX_CHARS ? reason : `${reason.slice(0, REASON_MAX_CHARS)}… (cut at ${REASON_MAX_CHARS} characters)`;
