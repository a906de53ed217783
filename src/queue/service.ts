/**
 * The landing queue, the use case whole (docs/decisions.md, "Landing queue"): a run enters its
 * workspace's queue for a target branch (`enter`, from `svc runs merge --queue` or
 * `POST …/merge {"queue": true}`), the queue is read in order (`list`), and the processor
 * (processor.ts) lands its entries one at a time. Routes only parse and format.
 */

import { join } from 'node:path';
import { DomainError } from '../shared/errors.js';
import { assertLandable, branchTips } from '../landing/index.js';
import type { RunEngine, RunRecord } from '../runs/index.js';
import type { ReworkMode } from '../workflows/index.js';
import { readWorktreeConfig, type WorkspaceService } from '../workspaces/index.js';
import { QueueProcessor, type QueueProcessorDeps } from './processor.js';
import { UNSTARTED, type QueueEntry, type QueueStrategy, type QueueView } from './records.js';

/** Rework runs one queued run gets before a person is needed, unless `max_rework` says otherwise. */
const DEFAULT_MAX_REWORK = 2;

/** The workflow a rework run runs: bundled/workflows/rework.yaml, unless the repository has its own. */
export const REWORK_WORKFLOW = 'rework';

/**
 * What the queue does when the run's entry needs rework: its workflow's `rework:`/`max_rework` (the
 * definition it ran, validated when it started), else those of `.svc/worktree.yaml` in its
 * worktree (an unusable file says nothing here: the queue's verification reports it).
 */
async function reworkPolicy(run: RunRecord, worktree: string): Promise<QueueEntry['rework']> {
  const written = typeof run.definition === 'object' && run.definition !== null ? (run.definition as Record<string, unknown>) : {};
  const config = await readWorktreeConfig(worktree).catch(() => null);
  const mode = (written.rework as ReworkMode | undefined) ?? config?.rework ?? 'person';
  const max = typeof written.max_rework === 'number' ? written.max_rework : (config?.max_rework ?? DEFAULT_MAX_REWORK);
  return { mode, max };
}

export interface EnterInput {
  /** Default: the workspace's default branch. */
  into?: string | undefined;
  /** Default: `merge`. */
  strategy?: QueueStrategy | undefined;
}

export interface LandingQueueDeps extends Omit<QueueProcessorDeps, 'runs' | 'scratchDir' | 'workspaces' | 'startRework'> {
  engine: Pick<RunEngine, 'settled' | 'runs' | 'start'>;
  workspaces: Pick<WorkspaceService, 'landingSite' | 'envValues' | 'idOf'>;
  /** `SVC_HOME`: the scratch worktrees go under `<home>/queue/`. */
  home: string;
}

export class LandingQueue {
  readonly #processor: QueueProcessor;

  constructor(private readonly deps: LandingQueueDeps) {
    this.#processor = new QueueProcessor({
      ...deps,
      runs: deps.engine.runs,
      scratchDir: join(deps.home, 'queue'),
      // A follow-on run of the bundled (or the repository's own) `rework` workflow, on the run's head.
      startRework: async ({ fromRunId, workspaceId, message }) =>
        (await deps.engine.start({ workflow: REWORK_WORKFLOW, message, fromRunId, workspaceId, trigger: 'api' })).id,
    });
  }

  /** Starts processing (a server): the queues a stopped process left are taken up where they stopped. */
  start(): void {
    this.#processor.start();
  }

  close(): Promise<void> {
    return this.#processor.close();
  }

  /**
   * Puts a run whose branch may be landed (409 `run_active`, `no_worktree` as a merge) at the end of
   * its workspace's queue for `into`; an entry that needs rework goes back to its place. 409
   * `already_queued` when the run waits in a queue or has landed through one.
   */
  async enter(runId: string, input: EnterInput = {}): Promise<QueueEntry> {
    const run = await this.deps.engine.settled(runId);
    assertLandable(run);
    const site = await this.deps.workspaces.landingSite(run.id, { sharedCheckout: true });
    const into = input.into ?? site.workspace.default_branch;
    const strategy = input.strategy ?? 'merge';
    // 404 `branch_not_found` now, not later in the queue.
    await branchTips({ repository: site.environment.repository, branch: site.environment.branch, into, strategy, message: '', runId: run.id }, site.git);
    const { repository, engine } = this.deps;
    const now = new Date().toISOString();
    const existing = await repository.get(run.id);
    let entry: QueueEntry | undefined;
    // Its rework run took its place: the two carry the same changes, and only one may land.
    const successor = existing?.reworkRunId ? await repository.get(existing.reworkRunId) : undefined;
    if (successor && successor.state !== 'needs_rework') {
      throw new DomainError(
        'already_queued',
        `Run ${run.id}'s rework run ${successor.runId} took its place in the landing queue of ${successor.target} (${successor.state}); queue that one, not this.`,
        { state: existing!.state, target: existing!.target, reworkRunId: successor.runId },
      );
    }
    // Not while its rework run is under way: that run takes its place when it finishes.
    if (existing?.state === 'needs_rework' && existing.target === into && !existing.awaitingRework) {
      const requeued: QueueEntry = { ...existing, state: 'queued', strategy, reason: null, files: null, outputTail: null, reworkRunId: null, updatedAt: now };
      entry = (await repository.replaceIf(existing, requeued)) ? requeued : undefined;
    } else if (!existing) {
      entry = await repository.enter({
        runId: run.id,
        workspaceId: site.workspace.id,
        target: into,
        ...UNSTARTED,
        strategy,
        rework: await reworkPolicy(run, site.environment.path),
        reworks: 0,
        reworkOf: null,
        reworkRunId: null,
        awaitingRework: false,
        enteredAt: now,
        updatedAt: now,
        landedAt: null,
      });
    }
    if (!entry) {
      const current = (await repository.get(run.id)) ?? existing;
      throw new DomainError(
        'already_queued',
        `Run ${run.id} is in the landing queue of ${current?.target ?? into} already (${current?.state ?? 'queued'}); it can enter again only once it needs rework.`,
        { state: current?.state ?? null, target: current?.target ?? into },
      );
    }
    await engine.runs.emit(run, 'queue_entered', { workspaceId: entry.workspaceId, target: entry.target, position: entry.position });
    this.#processor.wake(entry.workspaceId);
    return entry;
  }

  /** The run was deleted: its entry goes (a processor meeting it meanwhile finds it gone). */
  async forget(runId: string): Promise<void> {
    await this.deps.repository.remove(runId);
  }

  /** The workspace's entries in queue order (by target, then place), landed and needing rework included. */
  async list(workspace: string): Promise<QueueView> {
    const workspaceId = await this.deps.workspaces.idOf(workspace);
    return { workspaceId, entries: await this.deps.repository.list({ workspaceId }) };
  }
}
