/**
 * The landing queue's processor (docs/decisions.md, "Landing queue"): for each workspace it holds
 * (the coordination: one process per workspace), it lands the front of each target's queue
 * (lander.ts), one entry after another, in order, and follows the rework runs of entries that need
 * one (rework.ts). A paused queue, or one entered through another server, is looked at again every
 * `pollMs`.
 */

import type { Logger } from '../shared/logger.js';
import type { QueueCoordination } from '../coordination/index.js';
import type { MemoryAdmission } from '../processes/index.js';
import type { RunStore, SandboxDeps } from '../runs/index.js';
import type { WorkspaceService } from '../workspaces/index.js';
import { OPEN_STATES, type QueueEntry } from './records.js';
import type { QueueRepository } from './repository.js';
import { EntryChanged, type Step } from './entry-change.js';
import { ReworkRuns, type ReworkRunsDeps } from './rework.js';
import { Lander } from './lander.js';

export interface QueueProcessorDeps {
  repository: QueueRepository;
  runs: RunStore;
  workspaces: Pick<WorkspaceService, 'landingSite' | 'envValues'>;
  coordination: QueueCoordination;
  /** A bash node's sandbox settings: verify runs as one. */
  sandbox: SandboxDeps;
  /** `<home>/queue`: the scratch worktrees, one folder per workspace. */
  scratchDir: string;
  /** The server's memory budget: a verification is admitted as a bash node is. */
  memory?: MemoryAdmission | undefined;
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
  readonly #lander: Lander;

  constructor(private readonly deps: QueueProcessorDeps) {
    this.#reworks = new ReworkRuns(deps);
    this.#lander = new Lander(deps, this.#reworks, this.#stop.signal);
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

  /** Lands the fronts of the workspace's queues until none is left or every one waits. */
  async #drain(workspaceId: string): Promise<void> {
    const { repository, coordination } = this.deps;
    if (!(await coordination.hold(workspaceId))) return;
    for (;;) {
      const open = await repository.list({ workspaceId, states: OPEN_STATES });
      if (open.length === 0 && (await repository.list({ workspaceId, awaitingRework: true, limit: 1 })).length === 0) return coordination.release(workspaceId);
      // In queue order (by target, then position): each target's open entries, its head first.
      const queues = new Map<string, QueueEntry[]>();
      for (const entry of open) queues.set(entry.target, [...(queues.get(entry.target) ?? []), entry]);
      let moved = false;
      for (const awaiting of await repository.list({ workspaceId, awaitingRework: true })) {
        if (this.#stop.signal.aborted) return;
        const step = await this.#guarded(() => this.#reworks.follow(awaiting));
        if (step === undefined) return;
        if (step !== 'wait') moved = true;
      }
      for (const queue of queues.values()) {
        if (this.#stop.signal.aborted) return;
        const step = await this.#guarded(() => this.#lander.land(queue));
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
}
