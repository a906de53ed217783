import { notFound } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { assertOperationAllowed } from './lifecycle.js';
import { interruptRun } from './recovery.js';
import type { ForwardedStop, RunClaims, SharedRunEvents } from './run-claims.js';
import type { RunStore } from './run-store.js';
import type { RunRecord } from './types.js';

/** What the shared scheduler asks of the engine that owns the slots. */
export interface RunSlots {
  /** Shut down (or a read-only view): nothing more is launched. */
  closed(): boolean;
  /** Slots not taken by executing runs (claims in flight not counted). */
  free(): number;
  /** Executes a claimed pending run in a slot. */
  launch(run: RunRecord): void;
  /** Stops the run if it executes here (a stop another server forwarded). */
  abort(runId: string, op: ForwardedStop): void;
}

/**
 * The engine's side of a database shared by several servers (docs/scaling.md): pending runs are
 * claimed there instead of queued in memory, runs of dead servers are taken over, and stops of
 * runs another server executes are forwarded to it. The file store has none of this (engine.ts
 * keeps its own queue then).
 */
export class SharedRunScheduler {
  #claiming = false;
  #claimAgain = false;
  /** Slots promised to claims in flight. */
  #reserved = 0;

  constructor(
    readonly claims: RunClaims,
    private readonly runs: RunStore,
    private readonly logger: Logger,
    /** `SVC_RUN_LEASE_MS`. */
    private readonly runLeaseMs: number | undefined,
    private readonly slots: RunSlots,
  ) {}

  /** What the other servers tell this one (docs/scaling.md). */
  events(): SharedRunEvents {
    return {
      pending: () => void this.claimRuns(),
      orphaned: (runIds: string[]) => void this.#takeOver(runIds),
      stop: (runId: string, op: ForwardedStop) => this.slots.abort(runId, op),
    };
  }

  /**
   * A run made pending: claimed by this server at once when it has a free slot, else offered to
   * every server.
   */
  async offer(run: RunRecord): Promise<void> {
    if (!this.slots.closed() && this.slots.free() - this.#reserved > 0) {
      this.#reserved++;
      try {
        if (await this.claims.claimRun(run.id)) {
          this.slots.launch(run);
          return;
        }
      } finally {
        this.#reserved--;
      }
    }
    // Written as held by this server (so no other claimed it before its events were written): let it go.
    await this.claims.unclaim(run.id);
    this.claims.announcePending().catch((error: unknown) => this.logger.warn('run.announce_failed', { error: (error as Error).message }));
    void this.claimRuns();
  }

  /**
   * Claims as many pending runs as this server has free slots (the database hands each to one
   * server) and launches them; one claim at a time, again while more may be waiting.
   */
  async claimRuns(): Promise<void> {
    if (this.#claiming) {
      this.#claimAgain = true;
      return;
    }
    this.#claiming = true;
    try {
      do {
        this.#claimAgain = false;
        const free = this.slots.free() - this.#reserved;
        if (this.slots.closed() || free <= 0) break;
        const ids = await this.claims.claim(free);
        for (const id of ids) {
          const run = await this.runs.get(id);
          if (run?.status === 'pending' && !this.slots.closed()) this.slots.launch(run);
          else if (run?.status === 'pending') await this.claims.unclaim(id);
        }
        if (ids.length === free) this.#claimAgain = true;
      } while (this.#claimAgain);
    } catch (error) {
      this.logger.error('run.claim_failed', { error: (error as Error).message });
    } finally {
      this.#claiming = false;
    }
  }

  /**
   * Runs of a server whose lease expired, now held by this one: a running one was interrupted, as a
   * restarted server finds its own (resumable); a pending one may be claimed by any server again.
   */
  async #takeOver(runIds: string[]): Promise<void> {
    for (const id of runIds) {
      try {
        const run = await this.runs.get(id);
        if (run?.status === 'running') await interruptRun(this.runs, this.logger, run);
        else if (run?.status === 'pending') await this.claims.unclaim(id);
      } catch (error) {
        this.logger.error('run.takeover_failed', { runId: id, error: (error as Error).message });
      }
    }
    void this.claimRuns();
  }

  /**
   * A run another server executes: that server is told (LISTEN/NOTIFY), stops it as its own (the
   * whole process tree), and writes the outcome; this one answers once the store shows it. A server
   * that died meanwhile never answers: its lease runs out and the run ends interrupted instead.
   */
  async stopElsewhere(run: RunRecord, reason: ForwardedStop): Promise<RunRecord> {
    await this.claims.forwardStop(run.id, reason);
    const deadline = Date.now() + 2 * this.runLeaseMs! + 10_000;
    let current: RunRecord | undefined = run;
    while (current?.status === 'running' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      current = await this.runs.get(run.id);
    }
    if (!current) throw notFound('run_not_found', `No run '${run.id}'.`);
    if (current.status !== (reason === 'cancel' ? 'cancelled' : 'abandoned')) assertOperationAllowed(reason, current.status);
    return current;
  }
}
