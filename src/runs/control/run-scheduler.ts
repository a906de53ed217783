import type { ForwardedStop, RunAnnouncements, RunCoordination } from '../../coordination/index.js';
import { DomainError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { assertOperationAllowed } from '../model/lifecycle.js';
import { interruptRun } from './recovery.js';
import type { RunStore } from '../storage/run-store.js';
import type { RunRecord } from '../model/types.js';

/** What the scheduler asks of the engine that owns the slots. */
export interface RunSlots {
  /** Shut down (or a read-only view): nothing more is launched. */
  closed(): boolean;
  /** Slots not taken by executing runs (claims in flight not counted). */
  free(): number;
  /** Executes a claimed pending run in a slot. */
  launch(run: RunRecord): void;
  /** Stops the run if it executes here (a stop another process forwarded). */
  abort(runId: string, op: ForwardedStop): void;
}

/**
 * Which pending run executes when, through the coordination (coordination/types.ts): a run made
 * pending is claimed at once when a slot is free, else offered; free slots claim offered runs, in
 * order; runs whose process is gone are taken over; a stop of a run another process executes is
 * forwarded to it. One process alone queues its offers in memory (coordination/local.ts); servers
 * sharing a database claim them there (docs/scaling.md).
 */
export class RunScheduler {
  /** The claim loop in flight, if any. */
  #claiming: Promise<void> | undefined;
  #claimAgain = false;
  /** Slots promised to claims in flight. */
  #reserved = 0;

  constructor(
    private readonly coordination: RunCoordination,
    private readonly runs: RunStore,
    private readonly logger: Logger,
    private readonly options: {
      /** `SVC_RUN_LEASE_MS`. */
      runLeaseMs: number | undefined;
      /** What the previous process left `pending` is executed here (a server); else left for the next server (the CLI). */
      requeuePending: boolean;
    },
    private readonly slots: RunSlots,
  ) {}

  /** Starts taking part in executing runs: what the coordination tells this process is acted on from now. */
  start(): Promise<void> {
    const announcements: RunAnnouncements = {
      pending: () => void this.claimRuns(),
      orphaned: (runIds) => this.#takeOver(runIds),
      stop: (runId, op) => this.slots.abort(runId, op),
      leftBehind: async () => (await this.runs.withStatus(this.options.requeuePending ? ['running', 'pending'] : ['running'])).map((run) => run.id),
    };
    return this.coordination.start(announcements);
  }

  /** Offered runs waiting in this process. */
  get waiting(): number {
    return this.coordination.waiting;
  }

  /** A run made pending: claimed by this process at once when it has a free slot, else offered (`front`: an approved run). */
  async offer(run: RunRecord, front = false): Promise<void> {
    if (!this.slots.closed() && this.slots.free() - this.#reserved > 0) {
      this.#reserved++;
      try {
        if (await this.coordination.claimRun(run.id)) {
          this.slots.launch(run);
          return;
        }
      } finally {
        this.#reserved--;
      }
    }
    await this.coordination.offer(run.id, { front });
    void this.claimRuns();
  }

  /**
   * Claims as many offered runs as this process has free slots and launches them; one claim at a
   * time, again while more may be waiting.
   */
  claimRuns(): Promise<void> {
    if (this.#claiming) {
      this.#claimAgain = true;
      return this.#claiming;
    }
    this.#claiming = this.#claimLoop().finally(() => (this.#claiming = undefined));
    return this.#claiming;
  }

  async #claimLoop(): Promise<void> {
    try {
      do {
        this.#claimAgain = false;
        const free = this.slots.free() - this.#reserved;
        if (this.slots.closed() || free <= 0) break;
        const ids = await this.coordination.claim(free);
        for (const id of ids) {
          const run = await this.runs.get(id);
          if (run?.status === 'pending' && !this.slots.closed()) this.slots.launch(run);
          else if (run?.status === 'pending') await this.coordination.unclaim(id);
        }
        if (ids.length === free) this.#claimAgain = true;
      } while (this.#claimAgain);
    } catch (error) {
      this.logger.error('run.claim_failed', { error: (error as Error).message });
    }
  }

  /** Resolves once no claim is in flight (a process about to close waits for the runs it is launching). */
  async settled(): Promise<void> {
    while (this.#claiming) await this.#claiming;
  }

  /**
   * Runs whose process is gone (a dead server's, or what this home's previous process left), now
   * held by this one: a running one was interrupted, as a restarted server finds its own
   * (resumable); a pending one may be claimed again.
   */
  async #takeOver(runIds: string[]): Promise<void> {
    for (const id of runIds) {
      try {
        const run = await this.runs.get(id);
        if (run?.status === 'running') await interruptRun(this.runs, this.logger, run);
        else if (run?.status === 'pending') await this.coordination.unclaim(id);
      } catch (error) {
        this.logger.error('run.takeover_failed', { runId: id, error: (error as Error).message });
      }
    }
    void this.claimRuns();
  }

  /**
   * A stopped pending run leaves the offers. A run this process does not execute may be another's
   * (coordination): that process is told, stops it as its own (the whole process tree), and writes
   * the outcome; this one answers once the store shows it. A process that died meanwhile never
   * answers: its lease runs out and the run ends interrupted instead. Undefined when the run is no
   * other process's: the caller stops it here.
   */
  stopElsewhere(run: RunRecord, reason: ForwardedStop): Promise<RunRecord> | undefined {
    this.coordination.withdraw(run.id);
    if (run.status !== 'running' || !this.coordination.executesElsewhere(run.id)) return undefined;
    return this.#forwardStop(run, reason);
  }

  async #forwardStop(run: RunRecord, reason: ForwardedStop): Promise<RunRecord> {
    await this.coordination.forwardStop(run.id, reason);
    const deadline = Date.now() + 2 * (this.options.runLeaseMs ?? 0) + 10_000;
    let current: RunRecord | undefined = run;
    while (current?.status === 'running' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      current = await this.runs.get(run.id);
    }
    if (!current) throw new DomainError('run_not_found', `No run '${run.id}'.`);
    if (current.status !== (reason === 'cancel' ? 'cancelled' : 'abandoned')) assertOperationAllowed(reason, current.status);
    return current;
  }
}
