import type { EngineDeps, RecoveryOptions, StopReason } from './engine-deps.js';
import { frozenDefinition } from '../model/frozen-definition.js';
import { finishRun } from './finish.js';
import { executeRun, type ExecutorDeps } from '../executor/executor.js';
import { runVariables } from '../executor/run-variables.js';
import { executorDeps, placeAtLaunch } from './launch.js';
import { reservePort, type PortReservation } from './run-ports.js';
import { needsSetup, setupEnvironment, setUpWorktree } from './run-setup.js';
import { RunScheduler } from './run-scheduler.js';
import { capPermissions } from '../model/permission-cap.js';
import type { RunStore } from '../storage/run-store.js';
import { assertOperationAllowed } from '../model/lifecycle.js';
import { RunChangedElsewhere, transition } from '../storage/transition.js';
import { isTerminal, type RunRecord, type RunStatus } from '../model/types.js';
import { runSpanEnd } from '../executor/trace-facts.js';

const now = () => new Date().toISOString();

const isSettled = (status: RunStatus) => isTerminal(status) || status === 'paused';

/** An executing run: `running` resolves to the run as it starts executing, `done` to its last snapshot. */
interface ActiveRun {
  controller: AbortController;
  running: Promise<RunRecord>;
  done: Promise<RunRecord>;
}

/**
 * The runs executing in this process's slots (at most `SVC_MAX_CONCURRENT_RUNS`): how a run is
 * launched in a slot, executed and finished, who waits for it to settle, how it is stopped from
 * outside, and, through the scheduler (run-scheduler.ts), which pending run takes a slot that frees.
 */
export class RunExecutions {
  #active = new Map<string, ActiveRun>();
  #waiters = new Map<string, Set<(run: RunRecord) => void>>();
  /** Runs given agents of their own at start (workflow tests), until they end. */
  #runAgents = new Map<string, EngineDeps['agents']>();
  #closed = false;
  /** Which pending run executes when, through the coordination (one process alone, or servers sharing a database). */
  readonly #scheduler: RunScheduler;

  constructor(
    private readonly deps: EngineDeps,
    private readonly runs: RunStore,
    options: RecoveryOptions,
    /** A run ended with a wake-up (a wait, an auto-resume): the server's timer is armed for it (wake-ups.ts). */
    private readonly wakeUpScheduled: (wakeAt: RunRecord['wakeAt']) => void,
  ) {
    const { limits, logger } = deps;
    const requeuePending = options.requeuePending ?? true;
    this.#scheduler = new RunScheduler(
      deps.coordination.runs,
      runs,
      logger,
      { runLeaseMs: limits.runLeaseMs, requeuePending },
      {
        closed: () => this.#closed,
        free: () => limits.maxConcurrentRuns - this.#active.size,
        launch: (run) => void this.launch(run),
        abort: (runId, op) => {
          const active = this.#active.get(runId);
          if (active && !active.controller.signal.aborted) active.controller.abort(op);
        },
      },
    );
  }

  /** `recover`: this process executes runs, starting with what its predecessor left (recovery.ts); else it never does. */
  async open(recover: boolean): Promise<void> {
    if (!recover) this.#closed = true;
    else await this.#scheduler.start();
  }

  get stats() {
    return { running: this.#active.size, queued: this.#scheduler.waiting, max: this.deps.limits.maxConcurrentRuns };
  }

  /** A slot is free here now (and this process executes runs). */
  hasFreeSlot(): boolean {
    return !this.#closed && this.#active.size < this.deps.limits.maxConcurrentRuns;
  }

  /** The run executes with these agents instead of the engine's (a workflow test's fixture), until it ends. */
  giveAgents(runId: string, agents: EngineDeps['agents']): void {
    this.#runAgents.set(runId, agents);
  }

  /**
   * A run made pending: launched at once with a free slot, else offered (run-scheduler.ts; `front`: an
   * approved run). Resolves to the run as it is then: `running` when it went to a free slot here at
   * once (what the answer to its start says), else `pending`.
   */
  async enqueue(run: RunRecord, front = false): Promise<RunRecord> {
    await this.#scheduler.offer(run, front);
    // Placed at launch, perhaps in a new worktree (coordination): the answer does not wait for that.
    if (this.deps.coordination.placesRunsAtLaunch) return run;
    return (await this.#active.get(run.id)?.running) ?? run;
  }

  /**
   * Executes a run in a slot, taken now; `recorded` resolves to the run to execute once what must be
   * on disk before it goes on is (an approval). Resolves to the run as it starts executing (`running`),
   * or as it was when it could not start; rejects when `recorded` does.
   */
  launch(pending: RunRecord, recorded: Promise<RunRecord> = Promise.resolve(pending)): Promise<RunRecord> {
    const controller = new AbortController();
    let started!: (run: RunRecord) => void;
    let refused!: (error: unknown) => void;
    const running = new Promise<RunRecord>((resolve, reject) => {
      started = resolve;
      refused = reject;
    });
    // Unhandled only when nobody asked (a queued launch): its failure is the run's, handled below.
    running.catch(() => {});
    const done = (async (): Promise<RunRecord> => {
      let run: RunRecord;
      try {
        run = await recorded;
      } catch (error) {
        // The change that was to set it going (approve, wake) lost to another one: nothing of it ran here to finish.
        refused(error);
        return (await this.runs.get(pending.id)) ?? pending;
      }
      let failure: string | null = null;
      // `$SVC_PORT`: this run's own while it executes here (run-ports.ts).
      let port: PortReservation | undefined;
      let failureCode: string | null = null;
      try {
        const validation = frozenDefinition(run);
        if (!validation.ok) throw new Error(`the workflow definition is no longer valid: ${validation.errors.join('; ')}`);
        // An approved run with a free slot is already `running` (see `approve` in run-operations.ts).
        const firstLaunch = run.status === 'pending' && run.startedAt === null;
        if (run.status === 'pending') {
          const placed = await placeAtLaunch(this.deps, run);
          run = await transition(this.runs, run, 'launch', {
            patch: { startedAt: run.startedAt ?? now(), ...placed },
            events: [{ type: 'run_started', fields: {} }],
          });
        }
        started(run);
        // Reserved only now: binding a socket waits for the event loop, and a run started with a free
        // slot must already be `running` in the answer to its start (the launch above takes no such wait).
        port = await reservePort();
        const agents = this.#runAgents.get(run.id);
        // A workflow test's run queued again by a later server (its process stopped): never with real agents.
        if (!agents && run.trigger === 'test') throw new Error("a workflow test's run continues only in the process that started it, which holds its fixture");
        const deps = await executorDeps(agents ? { ...this.deps, agents } : this.deps, this.runs, run, port.port);
        // A new worktree is set up once, before its first node (run-setup.ts); a resumed run's is kept as it is.
        let headAfterSetup: string | null = null;
        if (needsSetup(run, firstLaunch)) {
          ({ run, failure } = await this.#setUp(run, deps, controller.signal));
          headAfterSetup = run.headCommit ?? null;
          // Its worktree is ready: background work for the workspace (a pool's refill) may start now, not before this run's first node.
          this.deps.worktrees.setUpDone?.(run.workspaceId!);
        }
        if (failure === null) {
          const executed = await executeRun(deps, run, capPermissions(validation.workflow, run.permissions), controller.signal, { headAfterSetup });
          run = executed.run;
          if (executed.error) throw executed.error;
          if (executed.stop) ({ message: failure, code: failureCode } = executed.stop);
        }
      } catch (error) {
        // Stopped by another server before it could start here (a cancel of the pending run won): not ours to finish.
        if (error instanceof RunChangedElsewhere && run.status === 'pending') return run;
        failure = (error as Error).message;
        this.deps.logger.error('run.internal_error', { runId: run.id, error: failure, stack: (error as Error).stack });
      } finally {
        port?.release();
        started(run);
      }
      try {
        return await this.#finish(run, controller.signal.reason as StopReason | undefined, failure, failureCode);
      } catch (error) {
        // The store refused the final write (disk full…): the run stays as last saved, the server stays up.
        this.deps.logger.error('run.finish_failed', { runId: run.id, error: (error as Error).message });
        this.notifySettled(run);
        return run;
      }
    })();
    this.#active.set(pending.id, { controller, running, done });
    void done.finally(() => {
      this.#active.delete(pending.id);
      void this.#scheduler.claimRuns();
    });
    return running;
  }

  /** The worktree setup with what a bash node of the run gets in its environment; the run with it, and its failure or null. */
  #setUp(run: RunRecord, deps: ExecutorDeps, signal: AbortSignal): Promise<{ run: RunRecord; failure: string | null }> {
    const env = setupEnvironment(deps.workspaceEnv, runVariables(run, this.runs.artifactsDir(run.id), deps.port));
    return setUpWorktree({ runs: this.runs, worktrees: this.deps.worktrees, logger: this.deps.logger, env }, run, signal);
  }

  /** The one place a run reaches its resulting state after execution or an outside stop. */
  async #finish(run: RunRecord, reason: StopReason | undefined, failure: string | null, failureCode: string | null = null): Promise<RunRecord> {
    const finished = await finishRun(this.runs, run, reason, failure, failureCode, this.deps.limits.autoResumeOnLimit);
    // A run that ends with a wake-up (a wait, an auto-resume) arms the timer for it (wake-ups.ts).
    this.wakeUpScheduled(finished.wakeAt);
    this.notifySettled(finished);
    return finished;
  }

  /** A run that is now terminal or paused answers those waiting for it (`waitUntilSettled`). */
  notifySettled(run: RunRecord): void {
    if (!isSettled(run.status)) return;
    if (isTerminal(run.status)) {
      this.#runAgents.delete(run.id);
      // Its span ends with it; a paused run's stays open for its approval (docs/decisions.md, "Traces").
      this.deps.tracing?.endRun(run.id, runSpanEnd(run));
    }
    const waiters = this.#waiters.get(run.id);
    this.#waiters.delete(run.id);
    for (const resolve of waiters ?? []) resolve(run);
  }

  /** Resolves when the run is terminal or paused (the CLI's foreground mode and `--wait`). */
  async waitUntilSettled(runId: string): Promise<RunRecord> {
    const { id } = await this.runs.resolve(runId);
    return new Promise((resolve, reject) => {
      const set = this.#waiters.get(id) ?? new Set();
      set.add(resolve);
      this.#waiters.set(id, set);
      // Read again once waiting: a run that settled before, and executes here no more, is answered
      // now; one that settles later is answered by notifySettled.
      this.runs.get(id).then((run) => {
        if (!run || !isSettled(run.status) || this.#active.has(id)) return;
        set.delete(resolve);
        resolve(run);
      }, reject);
    });
  }

  /**
   * A run's status turns `paused` a moment before its `run_paused` event is written; an operation
   * arriving in between waits for the executor to finish, so events stay in causal order.
   */
  async settledRun(runId: string): Promise<RunRecord> {
    const run = await this.runs.resolve(runId);
    const active = this.#active.get(run.id);
    return active && (run.status === 'paused' || run.status === 'waiting') ? active.done : run;
  }

  /**
   * Stops a pending or executing run from outside and waits until its processes are gone. If the
   * run ended otherwise meanwhile (it completed, or another stop got there first), the caller is
   * told so with the same 409 a late request would get.
   */
  async stop(run: RunRecord, reason: 'cancel' | 'abandon'): Promise<RunRecord> {
    const active = this.#active.get(run.id);
    if (active) {
      if (!active.controller.signal.aborted) active.controller.abort(reason);
      const stopped = await active.done;
      if (stopped.status !== (reason === 'cancel' ? 'cancelled' : 'abandoned')) assertOperationAllowed(reason, stopped.status);
      return stopped;
    }
    const elsewhere = this.#scheduler.stopElsewhere(run, reason);
    if (elsewhere) return elsewhere;
    try {
      return await this.#finish(run, reason, null);
    } catch (error) {
      // A pending run another server started meanwhile: that server stops it.
      const now = error instanceof RunChangedElsewhere ? await this.runs.get(run.id) : undefined;
      const stopped = now && this.#scheduler.stopElsewhere(now, reason);
      if (stopped) return stopped;
      throw error;
    }
  }

  /**
   * Resolves when nothing executes or waits for a slot: a process that opened the store only for
   * one command (the CLI without a server) lets the runs that command set going finish first.
   */
  async whenIdle(): Promise<void> {
    // A run finishing frees a slot that the next offered run is claimed for: that one is waited for too.
    for (await this.#scheduler.settled(); this.#active.size > 0; await this.#scheduler.settled()) {
      await Promise.allSettled([...this.#active.values()].map((a) => a.done));
    }
  }

  /** Shutdown begins: nothing more is launched here; queued runs stay `pending`. */
  closeSlots(): void {
    this.#closed = true;
  }

  /** Shutdown: executing runs stop as `failed`/`interrupted` (resumable); resolves once they have. */
  async stopAll(): Promise<void> {
    const active = [...this.#active.values()];
    for (const { controller } of active) controller.abort('shutdown');
    await Promise.allSettled(active.map((a) => a.done));
  }
}
