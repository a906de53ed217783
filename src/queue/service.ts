/**
 * The landing queue, the use case whole (docs/decisions.md, "Landing queue"): a run enters its
 * workspace's queue for a target branch (`enter`, from `svc runs merge --queue` or
 * `POST …/merge {"queue": true}`), the queue is read in order (`list`), and the processor
 * (processor.ts) lands its entries one at a time. Routes only parse and format.
 */

import { join } from 'node:path';
import { DomainError } from '../shared/errors.js';
import { assertLandable, branchTips } from '../landing/index.js';
import type { RunEngine } from '../runs/index.js';
import type { WorkspaceService } from '../workspaces/index.js';
import { QueueProcessor, type QueueProcessorDeps } from './processor.js';
import type { QueueEntry, QueueStrategy, QueueView } from './records.js';

export interface EnterInput {
  /** Default: the workspace's default branch. */
  into?: string | undefined;
  /** Default: `merge`. */
  strategy?: QueueStrategy | undefined;
}

export interface LandingQueueDeps extends Omit<QueueProcessorDeps, 'runs' | 'scratchDir' | 'workspaces'> {
  engine: Pick<RunEngine, 'settled' | 'runs'>;
  workspaces: Pick<WorkspaceService, 'landingSite' | 'envValues' | 'idOf'>;
  /** `SVC_HOME`: the scratch worktrees go under `<home>/queue/`. */
  home: string;
}

export class LandingQueue {
  readonly #processor: QueueProcessor;

  constructor(private readonly deps: LandingQueueDeps) {
    this.#processor = new QueueProcessor({ ...deps, runs: deps.engine.runs, scratchDir: join(deps.home, 'queue') });
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
    if (existing?.state === 'needs_rework' && existing.target === into) {
      const requeued: QueueEntry = { ...existing, state: 'queued', strategy, reason: null, files: null, outputTail: null, updatedAt: now };
      entry = (await repository.replaceIf(existing, requeued)) ? requeued : undefined;
    } else if (!existing) {
      entry = await repository.enter({
        runId: run.id,
        workspaceId: site.workspace.id,
        target: into,
        state: 'queued',
        strategy,
        reason: null,
        files: null,
        outputTail: null,
        base: null,
        commit: null,
        attempts: 0,
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

  /** The workspace's entries in queue order (by target, then place), landed and needing rework included. */
  async list(workspace: string): Promise<QueueView> {
    const workspaceId = await this.deps.workspaces.idOf(workspace);
    return { workspaceId, entries: await this.deps.repository.list({ workspaceId }) };
  }
}
