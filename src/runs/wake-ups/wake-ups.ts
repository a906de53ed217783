import type { Logger } from '../../shared/logger.js';
import type { RunStore } from '../storage/run-store.js';
import type { RunRecord, RunStatus } from '../model/types.js';

/**
 * One kind of timed wake-up on a run: the runs in `statuses` whose `wakeAt` has come are handed
 * to `keep`, which claims each by a change of state written only over the state it read (the
 * lifecycle's compare-and-set: with several servers on one database, one of them wins, the others
 * are told and let it go) and clears or moves its `wakeAt`.
 */
export interface WakeUpKind {
  readonly name: string;
  readonly statuses: readonly RunStatus[];
  keep(run: RunRecord): Promise<void>;
}

/** A wake-up still due after a check is looked at again this much later. */
const STILL_DUE_RETRY_MS = 1_000;

/** Node.js fires a longer timer at once; a later wake-up is looked at again after this long. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Timed wake-ups on runs (docs/decisions.md, "Waits and signals"): the time is on the run's record
 * (`wakeAt`, in both stores), so it survives a restart and a `kill -9`. The server keeps one timer,
 * for the earliest wake-up of any kind; at start-up and whenever it fires it keeps every
 * wake-up due, then arms for the next. Only a server does this (app/context.ts): a CLI process
 * that opened the store for one command never continues a run on its own.
 */
export class RunWakeUps {
  #timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (ms since the epoch). */
  #armedFor = Infinity;
  #checking: Promise<void> | undefined;
  #again = false;
  #closed = false;
  readonly #statuses: RunStatus[];

  constructor(
    private readonly runs: RunStore,
    private readonly kinds: readonly WakeUpKind[],
    private readonly logger: Logger,
    /**
     * With a database shared by several servers, a wake-up another server made is seen only
     * by asking again: the timer fires at least this often (ms). Undefined: only this server makes them.
     */
    private readonly pollMs?: number,
  ) {
    this.#statuses = [...new Set(kinds.flatMap((kind) => kind.statuses))];
  }

  /** Start-up: keeps what came due while no server ran, then arms the timer. */
  start(): Promise<void> {
    return this.check();
  }

  /** A run got a wake-up at `wakeAt` (ISO): the timer fires by then. */
  scheduled(wakeAt: string | null | undefined): void {
    if (!wakeAt || this.#closed) return;
    this.#arm(Date.parse(wakeAt));
  }

  /** Keeps every wake-up due now (one check at a time; a request meanwhile runs one more), then arms for the next. */
  check(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#checking) {
      this.#again = true;
      return this.#checking;
    }
    this.#checking = (async () => {
      do {
        this.#again = false;
        await this.#keepDue();
      } while (this.#again && !this.#closed);
      const next = await this.runs.nextWakeUp(this.#statuses);
      this.#disarm();
      // Still due right after it was kept: its keep failed or its record is odd (a `wakeAt` no kind
      // clears), or it was made during the check. Looked at again after a pause (at most this late),
      // never in a loop that holds the event loop.
      if (next !== undefined) {
        const at = Date.parse(next);
        this.#arm(at > Date.now() ? at : Date.now() + STILL_DUE_RETRY_MS);
      } else if (this.pollMs !== undefined) this.#arm(Date.now() + this.pollMs);
    })()
      .catch((error: unknown) => {
        // The store failed (a database restart…): asked again later rather than never.
        this.logger.error('run.appointments_failed', { error: (error as Error).message });
        this.#arm(Date.now() + (this.pollMs ?? 60_000));
      })
      .finally(() => {
        this.#checking = undefined;
      });
    return this.#checking;
  }

  async #keepDue(): Promise<void> {
    const due = await this.runs.dueWakeUps(this.#statuses, new Date().toISOString());
    for (const run of due) {
      const kind = this.kinds.find((k) => k.statuses.includes(run.status));
      if (!kind || this.#closed) continue;
      try {
        await kind.keep(run);
      } catch (error) {
        // One run's failure (lost to another server, a store error) never stops the others'.
        this.logger.warn('run.appointment_failed', { runId: run.id, kind: kind.name, error: (error as Error).message });
      }
    }
  }

  #arm(at: number): void {
    const capped = this.pollMs === undefined ? at : Math.min(at, Date.now() + this.pollMs);
    if (this.#timer && capped >= this.#armedFor) return;
    this.#disarm();
    this.#armedFor = capped;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#armedFor = Infinity;
        void this.check();
      },
      Math.min(Math.max(0, capped - Date.now()), MAX_TIMER_MS),
    );
    // A wake-up never keeps a process alive on its own.
    this.#timer.unref();
  }

  #disarm(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedFor = Infinity;
  }

  /** Shutdown: no timer fires after it; a check under way finishes what it started. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#disarm();
    await this.#checking;
  }
}
