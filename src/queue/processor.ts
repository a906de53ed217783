/**
 * The landing queue's processor (docs/decisions.md, "Landing queue"): for each workspace it holds
 * (the coordination: one process per workspace), it lands the head of each target's queue, one
 * entry at a time, in order. An entry is built on the target's current tip from git's objects
 * (a merge or a squash; a conflict touches nothing), checked out detached in a scratch worktree,
 * verified there by `verify:` (.svc/worktree.yaml) as a bash node of its run, and only when that
 * passes does the target move, by compare-and-set, to exactly that commit — the user's checkout
 * with it when it has the target checked out and is clean. A dirty checkout pauses the queue; the
 * processor looks again every `pollMs`.
 *
 * Each step is recorded on the entry before the next: a restart (or `kill -9`) finds a `verifying`
 * entry with the commit it tested, and when the target already contains that commit the entry
 * landed and is only recorded, never landed twice.
 */

import { join } from 'node:path';
import { DomainError } from '../shared/errors.js';
import { parseDuration } from '../shared/duration.js';
import type { Logger } from '../shared/logger.js';
import type { QueueCoordination } from '../coordination/index.js';
import { alreadyIn, assertCleanCheckout, branchContains, branchTips, landingCommit, moveBranch, recordLanding, type MergeRequest } from '../landing/index.js';
import { runVerification, type RunRecord, type RunStore, type SandboxDeps } from '../runs/index.js';
import { readWorktreeConfigAt, WorktreeConfigError, type LandingSite, type WorkspaceService } from '../workspaces/index.js';
import { OPEN_STATES, type QueueEntry } from './records.js';
import type { QueueRepository } from './repository.js';
import { openScratch } from './scratch.js';
import { landingMessage, outputTail } from './queue-text.js';
import { changeEntry, EntryChanged, type Step } from './entry-change.js';
import { ReworkRuns, type ReworkRunsDeps } from './rework.js';

export interface QueueProcessorDeps {
  repository: QueueRepository;
  runs: RunStore;
  workspaces: Pick<WorkspaceService, 'landingSite' | 'envValues'>;
  coordination: QueueCoordination;
  /** A bash node's sandbox settings: verify runs as one. */
  sandbox: SandboxDeps;
  /** `<home>/queue`: the scratch worktrees, one folder per workspace. */
  scratchDir: string;
  logger: Logger;
  /** How often the open queues are looked at unasked: a paused head, entries entered through another server. */
  pollMs: number;
  /** Starts a rework run (a follow-on run of `fromRunId`); resolves to its id. */
  startRework: ReworkRunsDeps['startRework'];
}

export class QueueProcessor {
  readonly #draining = new Map<string, Promise<void>>();
  readonly #again = new Set<string>();
  readonly #stop = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  /** Only a started processor (a server's) lands: a CLI process enters entries and leaves them to the server. */
  #started = false;
  readonly #reworks: ReworkRuns;

  constructor(private readonly deps: QueueProcessorDeps) {
    this.#reworks = new ReworkRuns(deps);
  }

  /** Looks at every open queue now and every `pollMs` from then on. */
  start(): void {
    this.#started = true;
    void this.#sweep();
    this.#timer = setInterval(() => void this.#sweep(), this.deps.pollMs);
    this.#timer.unref();
  }

  /** Stops: a verification under way is stopped and its entry left `verifying`, for the next start to do again. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#stop.abort();
    await Promise.allSettled([...this.#draining.values()]);
  }

  /** Something was entered in the workspace's queue: process it now (if this process holds it). */
  wake(workspaceId: string): void {
    if (!this.#started || this.#stop.signal.aborted) return;
    if (this.#draining.has(workspaceId)) {
      this.#again.add(workspaceId);
      return;
    }
    const draining = this.#drain(workspaceId)
      .catch((error: unknown) => this.deps.logger.warn('queue.failed', { workspaceId, error: (error as Error).message }))
      .finally(() => {
        this.#draining.delete(workspaceId);
        if (this.#again.delete(workspaceId)) this.wake(workspaceId);
      });
    this.#draining.set(workspaceId, draining);
  }

  async #sweep(): Promise<void> {
    try {
      const queues = await this.deps.repository.open();
      for (const workspaceId of new Set(queues.map((q) => q.workspaceId))) if (!this.#draining.has(workspaceId)) this.wake(workspaceId);
    } catch (error) {
      this.deps.logger.warn('queue.sweep_failed', { error: (error as Error).message });
    }
  }

  /** Lands the heads of the workspace's queues until none is left or every one waits. */
  async #drain(workspaceId: string): Promise<void> {
    const { repository, coordination } = this.deps;
    if (!(await coordination.hold(workspaceId))) return;
    for (;;) {
      const open = await repository.list({ workspaceId, states: OPEN_STATES });
      if (open.length === 0 && (await repository.list({ workspaceId, awaitingRework: true, limit: 1 })).length === 0) return coordination.release(workspaceId);
      const firsts = new Map<string, QueueEntry>();
      for (const entry of open) if (!firsts.has(entry.target)) firsts.set(entry.target, entry);
      let moved = false;
      for (const awaiting of await repository.list({ workspaceId, awaitingRework: true })) {
        if (this.#stop.signal.aborted) return;
        const step = await this.#guarded(() => this.#reworks.follow(awaiting));
        if (step === undefined) return;
        if (step !== 'wait') moved = true;
      }
      for (const head of firsts.values()) {
        if (this.#stop.signal.aborted) return;
        const step = await this.#guarded(() => this.#process(head));
        if (step === undefined) return;
        if (step !== 'wait') moved = true;
      }
      // Every head waits (paused): the next poll looks again.
      if (!moved) return;
    }
  }

  /** A step, or undefined when another process changed the entry meanwhile (it holds the queue now: this one stops). */
  async #guarded(step: () => Promise<Step>): Promise<Step | undefined> {
    try {
      return await step();
    } catch (error) {
      if (error instanceof EntryChanged) return undefined;
      throw error;
    }
  }

  async #process(entry: QueueEntry): Promise<Step> {
    const { runs, workspaces } = this.deps;
    const run = await runs.get(entry.runId);
    if (!run) {
      // Deleted while it waited: nothing is left to land.
      await this.deps.repository.remove(entry.runId);
      return 'done';
    }
    let site: LandingSite;
    try {
      site = await workspaces.landingSite(run.id, { sharedCheckout: true });
    } catch (error) {
      if (error instanceof DomainError) return this.#rework(entry, run, { reason: error.message });
      throw error;
    }
    const { git } = site;
    const request: MergeRequest = {
      repository: site.environment.repository,
      branch: site.environment.branch,
      into: entry.target,
      strategy: entry.strategy,
      message: landingMessage(run),
      runId: run.id,
    };
    // Landed already, by this process before it was stopped or by another that held the queue.
    if (entry.commit && (await branchContains(request.repository, entry.target, entry.commit, git))) return this.#landed(entry, entry.commit);
    const paused = await this.#dirty(entry, run, request, site);
    if (paused) return paused;
    let tips: { head: string; old: string };
    let commit: string;
    try {
      tips = await branchTips(request, git);
      if (await alreadyIn(tips.head, tips.old, request, git)) return this.#landed(entry, tips.old, true);
      commit = await landingCommit(tips.old, tips.head, request, git);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const files = error.code === 'merge_conflict' ? ((error.details as { files?: string[] } | undefined)?.files ?? []) : undefined;
      return this.#rework(entry, run, { reason: error.message, ...(files ? { files } : {}) }, site);
    }
    const verifying = await this.#change(entry, {
      state: 'verifying',
      base: tips.old,
      commit,
      attempts: entry.attempts + 1,
      reason: null,
      files: null,
      outputTail: null,
    });
    const failed = await this.#verify(verifying, run, site, commit);
    if (failed) return failed;
    // Still ours to land, after a verification that may have taken minutes: the entry unchanged
    // (not removed with its run, not decided by another server) and the queue still held here.
    const current = await this.deps.repository.get(entry.runId);
    if (!current || current.updatedAt !== verifying.updatedAt) throw new EntryChanged(`queue entry of ${entry.runId} changed while it was verified`);
    if (!(await this.deps.coordination.hold(entry.workspaceId))) throw new EntryChanged(`queue of ${entry.workspaceId} is held by another process now`);
    try {
      await site.exclusive(async () => moveBranch(request, tips.old, commit, await assertCleanCheckout(request, git), git));
    } catch (error) {
      const code = error instanceof DomainError ? error.code : undefined;
      // The target moved since the entry was built on it: built and verified again on its new tip.
      if (code === 'into_moved') return 'again';
      if (code === 'dirty_checkout') return this.#pause(verifying, run, (error as Error).message);
      throw error;
    }
    return this.#landed(verifying, commit);
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

  /** Runs `verify:` on `commit` in a scratch worktree; resolves to the step when it did not pass, else undefined. */
  async #verify(entry: QueueEntry, run: RunRecord, site: LandingSite, commit: string): Promise<Step | undefined> {
    const { environment, git } = site;
    const scratch = await openScratch(
      { dir: join(this.deps.scratchDir, entry.workspaceId), repository: environment.repository, runId: run.id, attempt: entry.attempts },
      commit,
      git,
    );
    try {
      let script: string | undefined;
      let timeoutMs: number | undefined;
      try {
        // The target's own `verify:`, at the tip the candidate was built on — never the candidate's:
        // the run being landed must not choose what checks it (`verify: exit 0`).
        const target = await readWorktreeConfigAt(environment.repository, entry.base!, git);
        script = target?.verify;
        timeoutMs = target?.verify_timeout === undefined ? undefined : (parseDuration(target.verify_timeout) ?? undefined);
        // The candidate's own file is checked, never run: a broken one must not land and fail every later run's setup.
        await readWorktreeConfigAt(environment.repository, commit, git);
      } catch (error) {
        if (error instanceof WorktreeConfigError) return this.#rework(entry, run, { reason: `.svc/worktree.yaml cannot be used: ${error.message}` }, site);
        throw error;
      }
      await this.#emit(run, 'queue_verifying', {
        workspaceId: entry.workspaceId,
        target: entry.target,
        base: entry.base!,
        commit,
        verify: script !== undefined,
      });
      if (script === undefined) return undefined;
      const outcome = await runVerification(
        {
          run,
          cwd: scratch.path,
          script,
          env: await this.deps.workspaces.envValues(entry.workspaceId),
          variables: { RUN_ID: run.id, SVC_LAND_TARGET: entry.target, SVC_LAND_COMMIT: commit },
          artifactsDir: this.deps.runs.artifactsDir(run.id),
          signal: this.#stop.signal,
          timeoutMs,
        },
        this.deps.sandbox,
      );
      if (outcome.passed) return undefined;
      // Stopped with the server: left `verifying`, verified again at the next start.
      if (this.#stop.signal.aborted) return 'wait';
      return this.#rework(entry, run, { reason: `verify failed on ${commit.slice(0, 12)}: ${outcome.message}`, outputTail: outputTail(outcome.output) }, site);
    } finally {
      await scratch.remove();
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
   * takes the entry's place once it completes (`#followRework`).
   */
  async #rework(entry: QueueEntry, run: RunRecord, given: { reason: string; files?: string[]; outputTail?: string }, site?: LandingSite): Promise<Step> {
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
    if (agent) changed = await this.#reworks.start(changed, run, site);
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

  #change(entry: QueueEntry, patch: Partial<QueueEntry>): Promise<QueueEntry> {
    return changeEntry(this.deps.repository, entry, patch);
  }

  #emit: RunStore['emit'] = (run, type, fields) => this.deps.runs.emit(run, type, fields);
}

/** At most this many files on an entry that needs rework (its reason says how many more). */
const REASON_FILES_MAX = 100;
/** An entry's reason past this many characters is cut: git's messages list every file. */
const REASON_MAX_CHARS = 2000;

const capReason = (reason: string) =>
  reason.length <= REASON_MAX_CHARS ? reason : `${reason.slice(0, REASON_MAX_CHARS)}… (cut at ${REASON_MAX_CHARS} characters)`;
