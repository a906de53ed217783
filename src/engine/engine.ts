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
  /** Runs executing here: `running` resolves to the run as it starts executing, `done` to its last snapshot. */
  #active = new Map<string, { controller: AbortController; running: Promise<RunRecord>; done: Promise<RunRecord> }>();
  /** Failed runs a start is continuing now (a second start of the same conversation meanwhile starts a new run). */
  #continuing = new Set<string>();
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
    // A second start of the same conversation may be continuing it already.
    if (resumable?.resumePending && resumable.status === 'failed' && !this.#continuing.has(resumable.id)) return this.#continue(resumable, resolved);

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
    const fresh = newRunRecord(request, resolved, { ...place, id, conversationId, platformId, workspaceId, fromRunId: follow?.fromRunId });
    const run = await transition(this.runs, fresh, 'create', { events: [{ type: 'run_created', fields: { trigger: fresh.trigger, message: fresh.message } }] });
    if (request.agents) this.#runAgents.set(id, request.agents);
    return this.#enqueue(run);
  }

  /**
   * Resume: same run id; completed nodes keep their outputs, everything else runs again. The nodes
   * are those of the definition as it is now (a node removed to fix the workflow is gone).
   */
  async #continue(run: RunRecord, resolved: ResolvedWorkflow): Promise<RunRecord> {
    // Claimed before anything is awaited: a second start of the same conversation meanwhile must
    // not continue the same run twice.
    this.#continuing.add(run.id);
    try {
      let cwd = run.cwd;
      if (run.workspaceId) {
        try {
          // The run's own worktree, with what its completed nodes did; one cleaned up is not made
          // again (their changes are gone), nor is one of a workspace deleted meanwhile.
          cwd = (await this.deps.places.resume(run.workspaceId, run.id)).cwd;
        } catch (error) {
          await this.runs.save({ ...run, resumePending: false });
          throw error;
        }
      }
      const nodes = resumedNodes(run, resolved);
      const skipped = Object.keys(nodes).filter((id) => nodes[id]!.status === 'completed');
      const continued = await transition(this.runs, run, 'continue', {
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
      return await this.#enqueue(continued);
    } finally {
      this.#continuing.delete(run.id);
    }
  }

  /**
   * A run made pending: launched at once with a free slot, else offered (run-scheduler.ts; `front`: an
   * approved run). Resolves to the run as it is then: `running` when it went to a free slot here at
   * once (what the answer to its start says), else `pending`.
   */
  async #enqueue(run: RunRecord, front = false): Promise<RunRecord> {
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
  #launch(pending: RunRecord, recorded: Promise<RunRecord> = Promise.resolve(pending)): Promise<RunRecord> {
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
        const validation = validateWorkflowSource(run.definition);
        if (!validation.ok) throw new Error(`the workflow definition is no longer valid: ${validation.errors.join('; ')}`);
        // An approved run with a free slot is already `running` (see `approve`).
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
        if (needsSetup(run, firstLaunch)) ({ run, failure } = await this.#setUp(run, deps, controller.signal));
        if (failure === null) {
          const executed = await executeRun(deps, run, capPermissions(validation.workflow, run.permissions), controller.signal);
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
        this.#notifySettled(run);
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
    return setUpWorktree({ runs: this.runs, places: this.deps.places, logger: this.deps.logger, env }, run, signal);
  }

  /** The one place a run reaches its resulting state after execution or an outside stop. */
  async #finish(run: RunRecord, reason: StopReason | undefined, failure: string | null, failureCode: string | null = null): Promise<RunRecord> {
    const finished = await finishRun(this.runs, run, reason, failure, failureCode, this.deps.limits.autoResumeOnLimit);
    // A run that ends with an appointment (a wait, an auto-resume) arms the timer for it (run-appointments.ts).
    this.#appointments?.scheduled(finished.wakeAt);
    this.#notifySettled(finished);
    return finished;
  }

  #notifySettled(run: RunRecord): void {
    if (!isSettled(run.status)) return;
    if (isTerminal(run.status)) this.#runAgents.delete(run.id);
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
      // now; one that settles later is answered by #notifySettled.
      this.runs.get(id).then((run) => {
        if (!run || !isSettled(run.status) || this.#active.has(id)) return;
        set.delete(resolve);
        resolve(run);
      }, reject);
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

  async cancel(runId: string): Promise<RunRecord> {
    const run = await this.#settledRun(runId);
    const calledOff = await cancelAutoResume(this.runs, run, 'cancel');
    if (calledOff) return calledOff;
    assertOperationAllowed('cancel', run.status);
    return this.#stop(run, 'cancel');
  }

  async abandon(runId: string): Promise<RunRecord> {
    const run = await this.#settledRun(runId);
    const calledOff = await cancelAutoResume(this.runs, run, 'abandon');
    if (calledOff) return calledOff;
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
    return active && (run.status === 'paused' || run.status === 'waiting') ? active.done : run;
  }

  /** The first waiting gate (definition order) completes with the comment as its output. */
  async approve(runId: string, comment?: string): Promise<RunRecord> {
    const run = await this.#settledRun(runId);
    assertOperationAllowed('approve', run.status);
    const elsewhere = await this.#boundElsewhere(run);
    const [gateId, waiting] = waitingGate(run);
    const at = now();
    const gate = moveNode(waiting, 'approve', {
      output: comment ?? '',
      finishedAt: at,
      durationMs: waiting.startedAt ? Date.parse(at) - Date.parse(waiting.startedAt) : null,
    });
    // With a free slot the run carries on at once; with every slot taken it waits `pending` at
    // the head of the queue (docs/decisions.md, "Runs").
    const events: EventSpec[] = [
      { type: 'run_approved', fields: { nodeId: gateId, comment: comment ?? '' } },
      { type: 'node_completed', fields: { nodeId: gateId, output: comment ?? '', durationMs: gate.durationMs } },
    ];
    return this.#carryOn(run, 'approve', events, elsewhere, { nodes: { ...run.nodes, [gateId]: gate } });
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
  async #carryOn(run: RunRecord, change: 'approve' | 'wake', events: EventSpec[], elsewhere: boolean, nodes: Partial<RunRecord>): Promise<RunRecord> {
    const patch = change === 'wake' ? { ...nodes, wakeAt: null } : nodes;
    if (!elsewhere && !this.#closed && this.#active.size < this.deps.limits.maxConcurrentRuns) {
      // The slot is taken now (#launch takes it synchronously), so no queued run can claim it meanwhile.
      return this.#launch(run, transition(this.runs, run, change, { to: 'running', events, patch }));
    }
    return this.#enqueue(await transition(this.runs, run, change, { to: 'pending', events, patch }), true);
  }

  /**
   * `POST …/signal`: the node waiting for `event` completes with the payload as its output and the
   * run goes on (waits.ts; 409 `not_waiting` when no node waits for it).
   */
  async signal(runId: string, event: string, payload?: unknown): Promise<RunRecord> {
    const run = await this.#settledRun(runId);
    const elsewhere = run.status === 'waiting' && (await this.#boundElsewhere(run));
    const { nodes, events } = await deliverSignal(this.runs.artifactsDir(run.id), run, event, payload);
    return this.#carryOn(run, 'wake', events, elsewhere, { nodes: { ...run.nodes, ...nodes } });
  }

  /** The appointment of a waiting run came (run-appointments.ts): its due waits end, and it goes on. */
  async #wake(found: RunRecord): Promise<void> {
    const run = await this.#settledRun(found.id);
    if (run.status !== 'waiting') return;
    const elsewhere = await this.#boundElsewhere(run);
    const { nodes, events } = await endDueWaits(this.runs.artifactsDir(run.id), run, new Date().toISOString());
    try {
      await this.#carryOn(run, 'wake', events, elsewhere, { nodes: { ...run.nodes, ...nodes } });
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
    const nodes = { ...run.nodes, [gateId]: moveNode(gate, 'close', { error: why ? `rejected: ${why}` : 'rejected', finishedAt: at }) };
    for (const [id, state] of Object.entries(nodes)) if (!isNodeDone(state.status)) nodes[id] = moveNode(state, 'close', { error: 'rejected' });
    const rejected = await transition(this.runs, run, 'reject', {
      patch: { nodes, rejectReason: why || null, finishedAt: at, costUsd: sumCost(Object.values(nodes)) },
      events: [
        { type: 'run_rejected', fields: { nodeId: gateId, reason: why } },
        { type: 'run_cancelled', fields: { reason: 'rejected' } },
      ],
    });
    this.#notifySettled(rejected);
    return rejected;
  }

  /** Marks a failed run to be continued; `maxCostUsd` replaces its spend cap (spend-cap.ts). */
  async resume(runId: string, options: { maxCostUsd?: number } = {}): Promise<RunRecord> {
    const run = await this.runs.resolve(runId);
    assertOperationAllowed('resume', run.status);
    assertResumableSpend(run, options.maxCostUsd);
    return transition(this.runs, run, 'resume', {
      patch: { resumePending: true, ...(options.maxCostUsd !== undefined ? { maxCostUsd: options.maxCostUsd } : {}) },
    });
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
