import type { EngineDeps, RecoveryOptions, RunFilter, StartRunRequest, StopReason } from './engine-deps.js';
import type { RunEvent } from './events.js';
import { finishRun, waitingGate } from './finish.js';
import { notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { validateWorkflowSource } from '../workflows/index.js';
import { executeRun, runVariables, type ExecutorDeps } from './executor.js';
import { executorDeps, placeAtLaunch } from './launch.js';
import { sumCost } from './node-state.js';
import { followOnBase } from './follow-on.js';
import { newRunRecord, resumedNodes } from './new-run.js';
import { recoverRuns } from './recovery.js';
import { reservePort, type PortReservation } from './run-ports.js';
import { needsSetup, setupEnvironment, setUpWorktree } from './run-setup.js';
import { SharedRunScheduler } from './shared-runs.js';
import { assertResumableSpend } from './spend-cap.js';
import { RunStore } from './run-store.js';
import type { RunEventFilter } from './run-repository.js';
import type { RunPage } from './run-queries.js';
import { assertLandable, recordLanding, type Landing } from './landing-record.js';
import { assertOperationAllowed, moveNode, RunChangedElsewhere, transition, type EventSpec } from './lifecycle.js';
import type { RunWhereabouts } from './run-claims.js';
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
  /** Pending runs waiting for a slot, in order. */
  #queue: RunRecord[] = [];
  /** Runs executing here: `running` resolves to the run as it starts executing, `done` to its last snapshot. */
  #active = new Map<string, { controller: AbortController; running: Promise<RunRecord>; done: Promise<RunRecord> }>();
  /** Failed runs a start is continuing now (a second start of the same conversation meanwhile starts a new run). */
  #continuing = new Set<string>();
  #waiters = new Map<string, Set<(run: RunRecord) => void>>();
  #closed = false;
  /** With a database shared by several servers: pending runs are claimed there instead of queued here. */
  readonly #shared: SharedRunScheduler | undefined;

  private constructor(
    private readonly deps: EngineDeps,
    /** The run records and events (benchmarks measure it directly; routes ask the engine). */
    readonly runs: RunStore,
  ) {
    this.#shared = !deps.claims
      ? undefined
      : new SharedRunScheduler(deps.claims, runs, deps.logger, deps.limits.runLeaseMs, {
          closed: () => this.#closed,
          free: () => deps.limits.maxConcurrentRuns - this.#active.size,
          launch: (run) => void this.#launch(run),
          abort: (runId, op) => {
            const active = this.#active.get(runId);
            if (active && !active.controller.signal.aborted) active.controller.abort(op);
          },
        });
  }

  static async open(deps: EngineDeps, options: RecoveryOptions): Promise<RunEngine> {
    const engine = new RunEngine(deps, await RunStore.open(deps.store, deps.bus, deps.runStorage));
    if (!options.recover) engine.#closed = true;
    else if (engine.#shared) await engine.#shared.claims.start(engine.#shared.events());
    else await engine.#recover(options.requeuePending ?? true);
    return engine;
  }

  get stats() {
    return { running: this.#active.size, queued: this.#queue.length, max: this.deps.limits.maxConcurrentRuns };
  }

  /** This server's id among those sharing the database; undefined on the file store. */
  get serverId(): string | undefined {
    return this.#shared?.claims.serverId;
  }

  /** Which server holds the run and which home its worktree is in (the run detail); undefined on the file store. */
  whereabouts(runId: string): Promise<RunWhereabouts> | undefined {
    return this.#shared?.claims.whereabouts(runId);
  }

  /** The servers sharing the database and the runs each executes (`/api/health`); undefined on the file store. */
  share(): Promise<{ servers: number; running: Record<string, number> }> | undefined {
    return this.#shared?.claims.share();
  }

  /** Server start (recovery.ts): interrupted runs are marked so, pending ones queue again. */
  async #recover(requeuePending: boolean): Promise<void> {
    for (const run of await recoverRuns(this.runs, this.deps.logger, requeuePending)) this.#queue.push(run);
    this.#pump();
  }

  async start(request: StartRunRequest): Promise<RunRecord> {
    const cwd = request.cwd ?? process.cwd();
    const resolved = await this.deps.resolver.resolve(request.workflow, cwd);
    if (!resolved) throw notFound('workflow_not_found', `No workflow named '${request.workflow}' (bundled or in ${cwd}/.svc/workflows).`);
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
      : this.deps.places.atLaunch
        ? { cwd: await this.deps.places.pathOf(workspaceId), ...(follow ? { baseCommit: follow.commit } : {}) }
        : await this.deps.places.place(workspaceId, id, follow ? { from: follow.commit } : {});
    const platformId = await this.deps.conversations.createWorker({ id, workflow: request.workflow, workspaceId });
    const fresh = newRunRecord(request, resolved, { ...place, id, conversationId, platformId, workspaceId, fromRunId: follow?.fromRunId });
    const run = await transition(this.runs, fresh, 'create', { events: [{ type: 'run_created', fields: { trigger: fresh.trigger, message: fresh.message } }] });
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
        patch: { nodes, cwd, resumePending: false, error: null, errorCode: null, resumeAt: null, finishedAt: null, definition: resolved.definition },
        events: [{ type: 'run_resumed', fields: { skipped } }],
      });
      return await this.#enqueue(continued);
    } finally {
      this.#continuing.delete(run.id);
    }
  }

  /**
   * A run made pending: queued here; or, with a shared database, claimed by this server at once when
   * it has a free slot, else offered to every server. Resolves to the run as it is then: `running`
   * when it went to a free slot here at once (what the answer to its start says), else `pending`.
   */
  async #enqueue(run: RunRecord, front = false): Promise<RunRecord> {
    if (this.#shared) {
      // Placed at launch, perhaps in a new worktree: the answer does not wait for that.
      await this.#shared.offer(run);
      return run;
    }
    if (front) this.#queue.unshift(run);
    else this.#queue.push(run);
    this.#pump();
    return (await this.#active.get(run.id)?.running) ?? run;
  }

  #pump(): void {
    if (this.#shared) return void this.#shared.claimRuns();
    while (!this.#closed && this.#active.size < this.deps.limits.maxConcurrentRuns && this.#queue.length > 0) {
      const run = this.#queue.shift()!;
      if (run.status === 'pending') void this.#launch(run);
    }
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
        // The change that was to set it going lost to another one: nothing of it ran here to finish.
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
        const deps = await executorDeps(this.deps, this.runs, run, port.port);
        // A new worktree is set up once, before its first node (run-setup.ts); a resumed run's is kept as it is.
        if (needsSetup(run, firstLaunch)) ({ run, failure } = await this.#setUp(run, deps, controller.signal));
        if (failure === null) {
          const executed = await executeRun(deps, run, validation.workflow, controller.signal);
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
      this.#pump();
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
    const finished = await finishRun(this.runs, run, reason, failure, failureCode);
    this.#notifySettled(finished);
    return finished;
  }

  #notifySettled(run: RunRecord): void {
    if (!isSettled(run.status)) return;
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
    if (this.#shared && run.status === 'running') return this.#shared.stopElsewhere(run, reason);
    this.#queue = this.#queue.filter((queued) => queued.id !== run.id);
    try {
      return await this.#finish(run, reason, null);
    } catch (error) {
      // A pending run another server started meanwhile: that server stops it.
      const now = error instanceof RunChangedElsewhere ? await this.runs.get(run.id) : undefined;
      if (now?.status === 'running') return this.#shared!.stopElsewhere(now, reason);
      throw error;
    }
  }

  async cancel(runId: string): Promise<RunRecord> {
    const run = await this.runs.resolve(runId);
    assertOperationAllowed('cancel', run.status);
    return this.#stop(run, 'cancel');
  }

  async abandon(runId: string): Promise<RunRecord> {
    const run = await this.#settledRun(runId);
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
    return active && run.status === 'paused' ? active.done : run;
  }

  /** The first waiting gate (definition order) completes with the comment as its output. */
  async approve(runId: string, comment?: string): Promise<RunRecord> {
    const run = await this.#settledRun(runId);
    assertOperationAllowed('approve', run.status);
    // A run whose worktree is in another home continues on a server of that home (docs/scaling.md): offered, not launched here.
    const elsewhere = this.#shared !== undefined && run.workspaceId !== null && (await this.#shared.claims.boundElsewhere(run.id));
    const [gateId, waiting] = waitingGate(run);
    const at = now();
    const gate = moveNode(waiting, 'approve', {
      output: comment ?? '',
      finishedAt: at,
      durationMs: waiting.startedAt ? Date.parse(at) - Date.parse(waiting.startedAt) : null,
    });
    const patch = { nodes: { ...run.nodes, [gateId]: gate } };
    // With a free slot the run carries on at once; with every slot taken it waits `pending` at
    // the head of the queue (docs/decisions.md, "Runs").
    const events: EventSpec[] = [
      { type: 'run_approved', fields: { nodeId: gateId, comment: comment ?? '' } },
      { type: 'node_completed', fields: { nodeId: gateId, output: comment ?? '', durationMs: gate.durationMs } },
    ];
    if (!elsewhere && !this.#closed && this.#active.size < this.deps.limits.maxConcurrentRuns) {
      // The slot is taken now (#launch takes it synchronously), so no queued run can claim it meanwhile.
      return this.#launch(run, transition(this.runs, run, 'approve', { to: 'running', patch, events }));
    }
    return this.#enqueue(await transition(this.runs, run, 'approve', { to: 'pending', patch, events }), true);
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
      if (!stored) throw notFound('run_not_found', `No run '${runId}'.`);
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
    if (!run) throw notFound('run_not_found', `No run has the worker conversation '${platformId}'.`);
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
    while (this.#active.size > 0) await Promise.allSettled([...this.#active.values()].map((a) => a.done));
  }

  /** Shutdown: executing runs stop as `failed`/`interrupted` (resumable); queued ones stay `pending`. */
  async close(): Promise<void> {
    this.#closed = true;
    const active = [...this.#active.values()];
    for (const { controller } of active) controller.abort('shutdown');
    await Promise.allSettled(active.map((a) => a.done));
    await this.#shared?.claims.close();
  }
}
