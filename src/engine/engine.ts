import type { EngineDeps, RecoveryOptions, RunFilter, StartRunRequest, StopReason } from './engine-deps.js';
import type { RunEvent } from './events.js';
import { finishRun, waitingGate } from './finish.js';
import { DomainError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { validateWorkflowSource } from '../workflows/index.js';
import { executeRun, runVariables, type ExecutorDeps } from './executor.js';
import { executorDeps, placeAtLaunch } from './launch.js';
import { sumCost } from './node-state.js';
import { followOnBase } from './follow-on.js';
import { definitionChanged } from './definition-version.js';
import { newRunRecord, resumedNodes, resumedVersion } from './new-run.js';
import { reservePort, type PortReservation } from './run-ports.js';
import { needsSetup, setupEnvironment, setUpWorktree } from './run-setup.js';
import { RunScheduler } from './run-scheduler.js';
import { assertResumableSpend } from './spend-cap.js';
import { capPermissions, checkRunPermissions } from './permission-cap.js';
import { autoResumeKind, cancelAutoResume } from './auto-resume.js';
import { RunStore } from './run-store.js';
import type { RunEventFilter } from './run-repository.js';
import type { RunPage } from './run-queries.js';
import { assertLandable, recordLanding, type Landing } from './landing-record.js';
import { assertOperationAllowed, moveNode, RunChangedElsewhere, transition, type EventSpec } from './lifecycle.js';
import type { RunWhereabouts } from '../coordination/types.js';
import { RunAppointments } from './run-appointments.js';
import { deliverSignal, endDueWaits } from './waits.js';
import { isNodeDone, isTerminal, type RunRecord, type RunStatus } from './types.js';
import type { ResolvedWorkflow } from './workflow-resolver.js';

export type { EngineDeps, EngineLimits, RecoveryOptions, RunFilter, RunLink, StartRunRequest } from './engine-deps.js';

export { RUN_PARALLELISM } from './launch.js';

const now = () => new Date().toISOString();

const isSettled = (status: RunStatus) => isTerminal(status) || status === 'paused';

/**
 * The run engine: starts runs, queues them FIFO behind `SVC_MAX_CONCURRENT_RUNS`, drives the
 * executor, and applies every user operation through the transition table. The server and the
 * CLI's offline mode both use this one class.
 */
export class RunEngine {
  #active = new Map<string, { controller: AbortController; done: Promise<void> }>();
  #waiters = new Map<string, Set<(run: RunRecord) => void>>();
  /** Runs given agents of their own at start (workflow tests), until they end. */
  #runAgents = new Map<string, EngineDeps['agents']>();
  #closed = false;
  /** Which pending run executes when, through the coordination (one process alone, or servers sharing a database). */
  readonly #scheduler: RunScheduler;
  /** The server's timer for runs' wake-up times (run-appointments.ts); undefined outside a server. */
  #appointments: RunAppointments | undefined;

  private constructor(
    private readonly deps: EngineDeps,
    /** The run records and events (benchmarks measure it directly; routes ask the engine). */
    readonly runs: RunStore,
    options: RecoveryOptions,
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
        launch: (run) => void this.#launch(run),
        abort: (runId, op) => {
          const active = this.#active.get(runId);
          if (active && !active.controller.signal.aborted) active.controller.abort(op);
        },
      },
    );
  }

  /** `options.recover`: this process executes runs, starting with what its predecessor left (recovery.ts); else it never does. */
  static async open(deps: EngineDeps, options: RecoveryOptions): Promise<RunEngine> {
    const engine = new RunEngine(deps, await RunStore.open(deps.store, deps.bus, deps.runStorage), options);
    if (!options.recover) engine.#closed = true;
    else await engine.#scheduler.start();
    return engine;
  }

  get stats() {
    return { running: this.#active.size, queued: this.#scheduler.waiting, max: this.deps.limits.maxConcurrentRuns };
  }

  /** This server's id among those sharing the database; undefined when this process owns every run. */
  get serverId(): string | undefined {
    return this.deps.coordination.serverId;
  }

  /** Which server holds the run and which home its worktree is in (the run detail); undefined when this process owns every run. */
  whereabouts(runId: string): Promise<RunWhereabouts> | undefined {
    return this.deps.coordination.runs.whereabouts(runId);
  }

  /** The servers sharing the database and the runs each executes (`/api/health`); undefined when this process owns every run. */
  share(): Promise<{ servers: number; running: Record<string, number> }> | undefined {
    return this.deps.coordination.runs.share();
  }

  /**
   * The server keeps the runs' appointments (docs/decisions.md, Waits and signals; Runs,
   * "Auto-resume"): waits and auto-resumes that came due while no server ran are kept now, later
   * ones when their time comes. With a shared database every `pollMs` too, for the appointments
   * other servers' runs made.
   */
  async keepAppointments(pollMs?: number): Promise<void> {
    const waits = { name: 'wait', statuses: ['waiting'] as const, keep: (run: RunRecord) => this.#wake(run) };
    const autoResumes = autoResumeKind(this.runs, this, this.deps.logger);
    this.#appointments = new RunAppointments(this.runs, [waits, autoResumes], this.deps.logger, pollMs);
    await this.#appointments.start();
  }

  async start(request: StartRunRequest): Promise<RunRecord> {
    const cwd = request.cwd ?? process.cwd();
    const resolved = await this.deps.resolver.resolve(request.workflow, cwd);
    if (!resolved) throw new DomainError('workflow_not_found', `No workflow named '${request.workflow}' (bundled or in ${cwd}/.svc/workflows).`);
    checkRunPermissions(resolved.workflow, request.permissions);
    const conversationId = request.conversationId ?? null;
    const resumable = conversationId !== null ? await this.runs.resumable(request.workflow, conversationId) : undefined;
    // Checked again on the live record: a second start of the same conversation may have continued it meanwhile.
    if (resumable?.resumePending && resumable.status === 'failed') return this.#continue(resumable, resolved);

    const id = request.runId ?? newId('run');
    // A run's workspace (docs/decisions.md, Workspaces): the one asked for; its conversation's; for a webhook run, the
    // one its workflow was found in; otherwise none, and it runs in its cwd. On a workspace it runs
    // in a worktree of its own, made now so that the run's cwd is on record from the start — with a
    // shared database, by the server that executes it, at launch (the workspace's path until then).
    const asked =
      request.workspaceId ??
      (conversationId !== null ? await this.deps.conversations.workspaceOf(conversationId) : null) ??
      (request.trigger === 'webhook' ? resolved.workspaceId : null);
    // A follow-on run is on the earlier run's workspace, its branch starting at that run's head
    // commit — its base commit from the start, also when a server places it only at launch.
    const follow = request.fromRunId ? await followOnBase(this.runs, request.fromRunId, asked) : undefined;
    const workspaceId = follow?.workspaceId ?? asked;
    const place = !workspaceId
      ? { cwd }
      : this.deps.coordination.placesRunsAtLaunch
        ? { cwd: await this.deps.places.pathOf(workspaceId), ...(follow ? { baseCommit: follow.commit } : {}) }
        : await this.deps.places.place(workspaceId, id, follow ? { from: follow.commit } : {});
    const platformId = await this.deps.conversations.createWorker({ id, workflow: request.workflow, workspaceId });
    const run = newRunRecord(request, resolved, { ...place, id, conversationId, platformId, workspaceId, fromRunId: follow?.fromRunId });
    await transition(this.runs, run, 'create', { events: [{ type: 'run_created', fields: { trigger: run.trigger, message: run.message } }] });
    if (request.agents) this.#runAgents.set(id, request.agents);
    await this.#enqueue(run);
    return run;
  }

  /**
   * Resume: same run id; completed nodes keep their outputs, everything else runs again. The nodes
   * are those of the definition as it is now (a node removed to fix the workflow is gone).
   */
  async #continue(run: RunRecord, resolved: ResolvedWorkflow): Promise<RunRecord> {
    // Claimed before anything is awaited: a second start of the same conversation meanwhile must
    // not continue the same run twice.
    run.resumePending = false;
    let cwd = run.cwd;
    if (run.workspaceId) {
      try {
        // The run's own worktree, with what its completed nodes did; one cleaned up is not made
        // again (their changes are gone), nor is one of a workspace deleted meanwhile.
        cwd = (await this.deps.places.resume(run.workspaceId, run.id)).cwd;
      } catch (error) {
        await this.runs.save(run);
        throw error;
      }
    }
    const nodes = resumedNodes(run, resolved);
    const skipped = Object.keys(nodes).filter((id) => nodes[id]!.status === 'completed');
    await transition(this.runs, run, 'continue', {
      patch: {
        nodes,
        cwd,
        resumePending: false,
        error: null,
        errorCode: null,
        resumeAt: null,
        autoResumeAt: null,
        wakeAt: null,
        finishedAt: null,
        ...resumedVersion(run, resolved),
      },
      events: [{ type: 'run_resumed', fields: { skipped } }],
    });
    await this.#enqueue(run);
    return run;
  }

  /** A run made pending: launched at once with a free slot, else offered (run-scheduler.ts; `front`: an approved run). */
  #enqueue(run: RunRecord, front = false): Promise<void> {
    return this.#scheduler.offer(run, front);
  }

  /** Executes a run in a slot; `recorded` is what must be on disk before it goes on (an approval). */
  #launch(run: RunRecord, recorded: Promise<void> = Promise.resolve()): Promise<void> {
    const controller = new AbortController();
    this.runs.hold(run);
    const done = (async () => {
      let failure: string | null = null;
      // `$SVC_PORT`: this run's own while it executes here (run-ports.ts).
      let port: PortReservation | undefined;
      let failureCode: string | null = null;
      let claimed = false;
      try {
        await recorded;
        claimed = true;
        const validation = validateWorkflowSource(run.definition);
        if (!validation.ok) throw new Error(`the workflow definition is no longer valid: ${validation.errors.join('; ')}`);
        // An approved run with a free slot is already `running` (see `approve`).
        const firstLaunch = run.status === 'pending' && run.startedAt === null;
        if (run.status === 'pending') {
          const placed = await placeAtLaunch(this.deps, run);
          await transition(this.runs, run, 'launch', {
            patch: { startedAt: run.startedAt ?? now(), ...placed },
            events: [{ type: 'run_started', fields: {} }],
          });
        }
        // Reserved only now: binding a socket waits for the event loop, and a run started with a free
        // slot must already be `running` in the answer to its start (the launch above takes no such wait).
        port = await reservePort();
        const agents = this.#runAgents.get(run.id);
        // A workflow test's run queued again by a later server (its process stopped): never with real agents.
        if (!agents && run.trigger === 'test') throw new Error("a workflow test's run continues only in the process that started it, which holds its fixture");
        const deps = await executorDeps(agents ? { ...this.deps, agents } : this.deps, this.runs, run, port.port);
        // A new worktree is set up once, before its first node (run-setup.ts); a resumed run's is kept as it is.
        const setupFailure = needsSetup(run, firstLaunch) ? await this.#setUp(run, deps, controller.signal) : null;
        if (setupFailure !== null) failure = setupFailure;
        else {
          const stop = await executeRun(deps, run, capPermissions(validation.workflow, run.permissions), controller.signal);
          if (stop) ({ message: failure, code: failureCode } = stop);
        }
      } catch (error) {
        // Stopped by another server before it could start here (a cancel of the pending run won): not ours to finish.
        // Or the change that continues it (approve, wake) lost to another server's: its caller is told.
        if (error instanceof RunChangedElsewhere && (run.status === 'pending' || !claimed)) return;
        failure = (error as Error).message;
        this.deps.logger.error('run.internal_error', { runId: run.id, error: failure, stack: (error as Error).stack });
      } finally {
        port?.release();
      }
      try {
        await this.#finish(run, controller.signal.reason as StopReason | undefined, failure, failureCode);
      } catch (error) {
        // The store refused the final write (disk full…): the run stays as last saved, the server stays up.
        this.deps.logger.error('run.finish_failed', { runId: run.id, error: (error as Error).message });
        this.#notifySettled(run);
      }
    })();
    this.#active.set(run.id, { controller, done });
    void done.finally(() => {
      this.#active.delete(run.id);
      if (isSettled(run.status) || run.status === 'pending' || run.status === 'waiting') this.runs.release(run);
      void this.#scheduler.claimRuns();
    });
    return recorded;
  }

  /** The worktree setup with what a bash node of the run gets in its environment; the run's failure or null. */
  #setUp(run: RunRecord, deps: ExecutorDeps, signal: AbortSignal): Promise<string | null> {
    const env = setupEnvironment(deps.workspaceEnv, runVariables(run, this.runs.artifactsDir(run.id), deps.port));
    return setUpWorktree({ runs: this.runs, places: this.deps.places, logger: this.deps.logger, env }, run, signal);
  }

  /** The one place a run reaches its resulting state after execution or an outside stop. */
  async #finish(run: RunRecord, reason: StopReason | undefined, failure: string | null, failureCode: string | null = null): Promise<void> {
    await finishRun(this.runs, run, reason, failure, failureCode, this.deps.limits.autoResumeOnLimit);
    // A run that ends with an appointment (a wait, an auto-resume) arms the timer for it (run-appointments.ts).
    this.#appointments?.scheduled(run.wakeAt);
    this.#notifySettled(run);
  }

  #notifySettled(run: RunRecord): void {
    if (!isSettled(run.status)) return;
    if (isTerminal(run.status)) this.#runAgents.delete(run.id);
    // Nothing here holds a settled run any more: the next operation reads it from the store.
    if (!this.#active.has(run.id)) this.runs.release(run);
    const waiters = this.#waiters.get(run.id);
    this.#waiters.delete(run.id);
    for (const resolve of waiters ?? []) resolve(run);
  }

  /** Resolves when the run is terminal or paused (the CLI's foreground mode and `--wait`). */
  async waitUntilSettled(runId: string): Promise<RunRecord> {
    const run = await this.runs.resolve(runId);
    if (isSettled(run.status) && !this.#active.has(run.id)) return Promise.resolve(run);
    return new Promise((resolve) => {
      const set = this.#waiters.get(run.id) ?? new Set();
      set.add(resolve);
      this.#waiters.set(run.id, set);
    });
  }

  /**
   * Stops a pending or executing run from outside and waits until its processes are gone. If the
   * run ended otherwise meanwhile (it completed, or another stop got there first), the caller is
   * told so with the same 409 a late request would get.
   */
  async #stop(run: RunRecord, reason: 'cancel' | 'abandon'): Promise<RunRecord> {
    const active = this.#active.get(run.id);
    if (active) {
      if (!active.controller.signal.aborted) active.controller.abort(reason);
      await active.done;
      if (run.status !== (reason === 'cancel' ? 'cancelled' : 'abandoned')) assertOperationAllowed(reason, run.status);
      return run;
    }
    const elsewhere = this.#scheduler.stopElsewhere(run, reason);
    if (elsewhere) return elsewhere;
    try {
      await this.#finish(run, reason, null);
    } catch (error) {
      // A pending run another server started meanwhile: that server stops it.
      const now = error instanceof RunChangedElsewhere ? await this.runs.get(run.id) : undefined;
      const stopped = now && this.#scheduler.stopElsewhere(now, reason);
      if (stopped) return stopped;
      throw error;
    }
    return run;
  }

  async cancel(runId: string): Promise<RunRecord> {
    const run = await this.#settledRun(runId);
    if (await cancelAutoResume(this.runs, run, 'cancel')) return run;
    assertOperationAllowed('cancel', run.status);
    return this.#stop(run, 'cancel');
  }

  async abandon(runId: string): Promise<RunRecord> {
    const run = await this.#settledRun(runId);
    if (await cancelAutoResume(this.runs, run, 'abandon')) return run;
    assertOperationAllowed('abandon', run.status);
    return this.#stop(run, 'abandon');
  }

  /**
   * A run's status turns `paused` a moment before its `run_paused` event is written; an operation
   * arriving in between waits for the executor to finish, so events stay in causal order.
   */
  async #settledRun(runId: string): Promise<RunRecord> {
    const run = await this.runs.resolve(runId);
    const active = this.#active.get(run.id);
    if (active && (run.status === 'paused' || run.status === 'waiting')) await active.done;
    return run;
  }

  /** The first waiting gate (definition order) completes with the comment as its output. */
  async approve(runId: string, comment?: string): Promise<RunRecord> {
    const run = await this.#settledRun(runId);
    assertOperationAllowed('approve', run.status);
    const elsewhere = await this.#boundElsewhere(run);
    const [gateId, gate] = waitingGate(run);
    const at = now();
    moveNode(gate, 'approve', { output: comment ?? '', finishedAt: at, durationMs: gate.startedAt ? Date.parse(at) - Date.parse(gate.startedAt) : null });
    // With a free slot the run carries on at once; with every slot taken it waits `pending` at
    // the head of the queue (docs/decisions.md, "Runs").
    const events: EventSpec[] = [
      { type: 'run_approved', fields: { nodeId: gateId, comment: comment ?? '' } },
      { type: 'node_completed', fields: { nodeId: gateId, output: comment ?? '', durationMs: gate.durationMs } },
    ];
    await this.#carryOn(run, 'approve', events, elsewhere);
    return run;
  }

  /** A run whose worktree is in another home continues on a server of that home (docs/scaling.md): offered, not launched here. */
  async #boundElsewhere(run: RunRecord): Promise<boolean> {
    return run.workspaceId !== null && (await this.deps.coordination.runs.boundElsewhere(run.id));
  }

  /**
   * A paused or waiting run goes on (approve, a wait's end): with a free slot at once, else `pending`
   * at the head of the queue (docs/decisions.md, "Runs"). The change is written only over the state
   * it was decided on, so of two servers continuing one run, one wins and the other is told (409).
   */
  async #carryOn(run: RunRecord, change: 'approve' | 'wake', events: EventSpec[], elsewhere: boolean): Promise<void> {
    const patch = change === 'wake' ? { wakeAt: null } : undefined;
    if (!elsewhere && !this.#closed && this.#active.size < this.deps.limits.maxConcurrentRuns) {
      // The slot is taken now (the status is set synchronously), so no queued run can claim it meanwhile.
      await this.#launch(run, transition(this.runs, run, change, { to: 'running', events, patch }));
    } else {
      await transition(this.runs, run, change, { to: 'pending', events, patch });
      await this.#enqueue(run, true);
    }
  }

  /**
   * `POST …/signal`: the node waiting for `event` completes with the payload as its output and the
   * run goes on (waits.ts; 409 `not_waiting` when no node waits for it).
   */
  async signal(runId: string, event: string, payload?: unknown): Promise<RunRecord> {
    const run = await this.#settledRun(runId);
    const elsewhere = run.status === 'waiting' && (await this.#boundElsewhere(run));
    const events = await deliverSignal(this.runs.artifactsDir(run.id), run, event, payload);
    await this.#carryOn(run, 'wake', events, elsewhere);
    return run;
  }

  /** The appointment of a waiting run came (run-appointments.ts): its due waits end, and it goes on. */
  async #wake(found: RunRecord): Promise<void> {
    const run = await this.#settledRun(found.id);
    if (run.status !== 'waiting') return;
    const elsewhere = await this.#boundElsewhere(run);
    const events = await endDueWaits(this.runs.artifactsDir(run.id), run, new Date().toISOString());
    try {
      await this.#carryOn(run, 'wake', events, elsewhere);
    } catch (error) {
      // Another server woke it first (or it was cancelled meanwhile): that change stands.
      if (!(error instanceof RunChangedElsewhere)) throw error;
    }
  }

  async reject(runId: string, reason?: string): Promise<RunRecord> {
    const run = await this.#settledRun(runId);
    assertOperationAllowed('reject', run.status);
    const [gateId, gate] = waitingGate(run);
    const at = now();
    const why = reason ?? '';
    moveNode(gate, 'close', { error: why ? `rejected: ${why}` : 'rejected', finishedAt: at });
    for (const state of Object.values(run.nodes)) if (!isNodeDone(state.status)) moveNode(state, 'close', { error: 'rejected' });
    await transition(this.runs, run, 'reject', {
      patch: { rejectReason: why || null, finishedAt: at, costUsd: sumCost(Object.values(run.nodes)) },
      events: [
        { type: 'run_rejected', fields: { nodeId: gateId, reason: why } },
        { type: 'run_cancelled', fields: { reason: 'rejected' } },
      ],
    });
    this.#notifySettled(run);
    return run;
  }

  /** Marks a failed run to be continued; `maxCostUsd` replaces its spend cap (spend-cap.ts). */
  async resume(runId: string, options: { maxCostUsd?: number } = {}): Promise<RunRecord> {
    const run = await this.runs.resolve(runId);
    assertOperationAllowed('resume', run.status);
    assertResumableSpend(run, options.maxCostUsd);
    await transition(this.runs, run, 'resume', {
      patch: { resumePending: true, ...(options.maxCostUsd !== undefined ? { maxCostUsd: options.maxCostUsd } : {}) },
    });
    return run;
  }

  async delete(runId: string): Promise<RunRecord> {
    const run = await this.runs.resolve(runId);
    assertOperationAllowed('delete', run.status);
    // Deleted only as read: a run another server resumed meanwhile is not deleted under it (409, as a late request).
    if (!(await this.runs.delete(run))) {
      const stored = await this.runs.get(run.id);
      if (!stored) throw new DomainError('run_not_found', `No run '${runId}'.`);
      throw new RunChangedElsewhere(run.id, 'delete', stored.status);
    }
    // Published, not persisted: the log it would go to was removed with the run.
    this.deps.bus.publish({ type: 'run_deleted', at: now(), runId: run.id, conversationId: run.conversationId, platformId: run.platformId });
    if (run.workspaceId) await this.deps.places.release(run.id);
    return run;
  }

  /** A run whose branch may be merged, pushed or proposed (409 `run_active` while it is pending or running). */
  async landable(runId: string): Promise<RunRecord> {
    const run = await this.#settledRun(runId);
    assertLandable(run);
    return run;
  }

  /** Records a merge or pull request of a run's branch (landing-record.ts). */
  recordLanding(run: RunRecord, landing: Landing): Promise<RunRecord> {
    return recordLanding(this.runs, run, landing);
  }

  /** Where a run's artifacts live (a trigger puts its payload file there before the run starts). */
  artifactsDir(runId: string): string {
    return this.runs.artifactsDir(runId);
  }

  /** The run with exactly this id, if there is one. */
  find(runId: string): Promise<RunRecord | undefined> {
    return this.runs.get(runId);
  }

  /** An exact id or a unique prefix (400 `ambiguous_run_id`, 404 `run_not_found`). */
  get(runId: string): Promise<RunRecord> {
    return this.runs.resolve(runId);
  }

  /** Whether the run's workflow was edited since the run took its definition (the run detail); undefined when unknown. */
  definitionChanged(run: RunRecord): Promise<boolean | undefined> {
    return definitionChanged(this.deps, run);
  }

  /** A run's persisted events, in order (the run detail). */
  async events(runId: string): Promise<RunEvent[]> {
    return this.runs.readEvents((await this.runs.resolve(runId)).id);
  }

  /** Persisted events after stream position `after` of the runs `filter` names, in position order (Last-Event-ID replay). */
  replay(after: number, filter: RunEventFilter): Promise<RunEvent[]> {
    return this.runs.eventsAfter(after, filter);
  }

  async byWorker(platformId: string): Promise<RunRecord> {
    const run = await this.runs.byWorker(platformId);
    if (!run) throw new DomainError('run_not_found', `No run has the worker conversation '${platformId}'.`);
    return run;
  }

  /** Runs, newest first (ids grow with time), one page of them. */
  list(filter: RunFilter = {}): Promise<RunPage> {
    return this.runs.list(filter);
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

  /** Shutdown: executing runs stop as `failed`/`interrupted` (resumable); queued ones stay `pending`. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#appointments?.close();
    const active = [...this.#active.values()];
    for (const { controller } of active) controller.abort('shutdown');
    await Promise.allSettled(active.map((a) => a.done));
    await this.deps.coordination.runs.close();
  }
}
