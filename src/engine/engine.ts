import type { EngineDeps, RecoveryOptions, RunFilter, StartRunRequest, StopReason } from './engine-deps.js';
import type { RunEvent } from './events.js';
import { finishRun, waitingGate } from './finish.js';
import { notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { validateWorkflowSource } from '../workflows/index.js';
import { executeRun } from './executor.js';
import { freshNodeState, sumCost } from './node-state.js';
import { killOrphanGroup, readProcessFile } from '../processes/process-identity.js';
import { RunStore } from './run-store.js';
import type { RunEventFilter } from './run-repository.js';
import type { RunPage } from './run-queries.js';
import { assertOperationAllowed, moveNode, RunChangedElsewhere, transition, type EventSpec } from './lifecycle.js';
import type { ForwardedStop, RunClaims, RunWhereabouts } from './run-claims.js';
import { isNodeDone, isTerminal, type RunRecord, type RunStatus } from './types.js';
import type { ResolvedWorkflow } from './workflow-resolver.js';

export type { EngineDeps, EngineLimits, RecoveryOptions, RunFilter, RunLink, StartRunRequest } from './engine-deps.js';

/** Nodes of one run executing at once; more wait for a free place, in definition order. */
export const RUN_PARALLELISM = 8;

const now = () => new Date().toISOString();

const isSettled = (status: RunStatus) => isTerminal(status) || status === 'paused';

/**
 * The run engine: starts runs, queues them FIFO behind `SVC_MAX_CONCURRENT_RUNS`, drives the
 * executor, and applies every user operation through the transition table. The server and the
 * CLI's offline mode both use this one class.
 */
export class RunEngine {
  /** Live records (run-store.ts) waiting for a slot, in order. */
  #queue: RunRecord[] = [];
  #active = new Map<string, { controller: AbortController; done: Promise<void> }>();
  #waiters = new Map<string, Set<(run: RunRecord) => void>>();
  #closed = false;
  /** With a database shared by several servers: pending runs are claimed there instead of queued here. */
  readonly #claims: RunClaims | undefined;
  #claiming = false;
  #claimAgain = false;
  /** Slots promised to claims in flight. */
  #reserved = 0;

  private constructor(
    private readonly deps: EngineDeps,
    /** The run records and events (benchmarks measure it directly; routes ask the engine). */
    readonly runs: RunStore,
  ) {
    this.#claims = deps.claims;
  }

  static async open(deps: EngineDeps, options: RecoveryOptions): Promise<RunEngine> {
    const engine = new RunEngine(deps, await RunStore.open(deps.store, deps.bus, deps.runStorage));
    if (!options.recover) engine.#closed = true;
    else if (deps.claims) await deps.claims.start(engine.#sharedEvents());
    else await engine.#recover(options.requeuePending ?? true);
    return engine;
  }

  get stats() {
    return { running: this.#active.size, queued: this.#queue.length, max: this.deps.limits.maxConcurrentRuns };
  }

  /** This server's id among those sharing the database; undefined on the file store. */
  get serverId(): string | undefined {
    return this.#claims?.serverId;
  }

  /** Which server holds the run and which home its worktree is in (the run detail); undefined on the file store. */
  whereabouts(runId: string): Promise<RunWhereabouts> | undefined {
    return this.#claims?.whereabouts(runId);
  }

  /** The servers sharing the database and the runs each executes (`/api/health`); undefined on the file store. */
  share(): Promise<{ servers: number; running: Record<string, number> }> | undefined {
    return this.#claims?.share();
  }

  /** What the other servers tell this one (docs/scaling.md). */
  #sharedEvents() {
    return {
      pending: () => this.#pump(),
      orphaned: (runIds: string[]) => void this.#takeOver(runIds),
      stop: (runId: string, op: ForwardedStop) => {
        const active = this.#active.get(runId);
        if (active && !active.controller.signal.aborted) active.controller.abort(op);
      },
    };
  }

  /**
   * Runs of a server whose lease expired, now held by this one: a running one was interrupted, as a
   * restarted server finds its own (resumable); a pending one may be claimed by any server again.
   */
  async #takeOver(runIds: string[]): Promise<void> {
    for (const id of runIds) {
      try {
        const run = await this.runs.get(id);
        if (run?.status === 'running') await this.#interrupt(run);
        else if (run?.status === 'pending') await this.#claims!.unclaim(id);
      } catch (error) {
        this.deps.logger.error('run.takeover_failed', { runId: id, error: (error as Error).message });
      }
    }
    this.#pump();
  }

  /** A run whose server stopped while it executed ends `failed`/`interrupted` (resumable). */
  async #interrupt(run: RunRecord): Promise<void> {
    for (const [nodeId, state] of Object.entries(run.nodes)) {
      if (state.status === 'completed') continue;
      // Its processes outlived the server (they lead their own groups): stop them, or a resume would
      // run the node twice. Any unfinished node with a process file is stopped, whatever the
      // record says of it: after a power loss the record may be a round behind its processes. Only
      // this SVC_HOME's files are seen: a server never kills what another machine started.
      const leader = readProcessFile(this.runs.processFile(run.id, nodeId));
      if (leader && killOrphanGroup(leader.pid, leader.startTime)) {
        this.deps.logger.warn('run.orphan_killed', { runId: run.id, nodeId, pid: leader.pid });
      }
      if (state.status === 'running') moveNode(state, 'interrupt', { error: 'interrupted', finishedAt: now() });
    }
    await transition(this.runs, run, 'interrupt', {
      patch: { error: 'interrupted', finishedAt: now(), costUsd: sumCost(Object.values(run.nodes)) },
      events: [{ type: 'run_failed', fields: { error: 'interrupted' } }],
    });
    this.runs.release(run);
    this.deps.logger.warn('run.interrupted', { runId: run.id, workflow: run.workflow });
  }

  /**
   * Server start: `running` runs were interrupted (resumable), `pending` ones queue again, `paused`
   * stay. The CLI's foreground mode leaves pending runs for the next server instead of running them.
   */
  async #recover(requeuePending: boolean): Promise<void> {
    const runs = await this.runs.withStatus(requeuePending ? ['running', 'pending'] : ['running']);
    for (const run of runs) {
      if (run.status === 'running') {
        await this.#interrupt(run);
      } else if (run.status === 'pending' && requeuePending) {
        this.#queue.push(this.runs.hold(run));
      }
    }
    this.#pump();
  }

  async start(request: StartRunRequest): Promise<RunRecord> {
    const cwd = request.cwd ?? process.cwd();
    const resolved = await this.deps.resolver.resolve(request.workflow, cwd);
    if (!resolved) throw notFound('workflow_not_found', `No workflow named '${request.workflow}' (bundled or in ${cwd}/.svc/workflows).`);
    const conversationId = request.conversationId ?? null;
    const resumable = conversationId !== null ? await this.runs.resumable(request.workflow, conversationId) : undefined;
    // Checked again on the live record: a second start of the same conversation may have continued it meanwhile.
    if (resumable?.resumePending && resumable.status === 'failed') return this.#continue(resumable, resolved);

    const id = request.runId ?? newId('run');
    // A run's workspace (docs/decisions.md, Workspaces): the one asked for; its conversation's; for a webhook run, the
    // one its workflow was found in; otherwise none, and it runs in its cwd. On a workspace it runs
    // in a worktree of its own, made now so that the run's cwd is on record from the start — with a
    // shared database, by the server that executes it, at launch (the workspace's path until then).
    const workspaceId =
      request.workspaceId ??
      (conversationId !== null ? await this.deps.conversations.workspaceOf(conversationId) : null) ??
      (request.trigger === 'webhook' ? resolved.workspaceId : null);
    const place = !workspaceId
      ? { cwd }
      : this.deps.places.atLaunch
        ? { cwd: await this.deps.places.pathOf(workspaceId) }
        : await this.deps.places.place(workspaceId, id);
    const platformId = await this.deps.conversations.createWorker({ id, workflow: request.workflow, workspaceId });
    const at = now();
    const run: RunRecord = {
      id,
      workflow: request.workflow,
      // `create` below makes it `pending`.
      status: 'pending',
      message: request.message,
      // Without a conversation of its own, a run belongs to its worker conversation: starting the
      // workflow again with that id is how such a run is resumed.
      conversationId: conversationId ?? platformId,
      platformId,
      workspaceId,
      cwd: place.cwd,
      trigger: request.trigger,
      createdAt: at,
      startedAt: null,
      finishedAt: null,
      updatedAt: at,
      error: null,
      costUsd: null,
      nodes: Object.fromEntries(resolved.workflow.nodes.map((node) => [node.id, freshNodeState()])),
      resumePending: false,
      variables: request.variables ?? {},
      definition: resolved.definition,
    };
    await transition(this.runs, run, 'create', { events: [{ type: 'run_created', fields: { trigger: run.trigger, message: run.message } }] });
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
    const nodes = Object.fromEntries(
      resolved.workflow.nodes.map((node) => {
        const state = run.nodes[node.id];
        if (!state) return [node.id, freshNodeState()];
        return [node.id, state.status === 'completed' ? state : moveNode(state, 'reset', freshNodeState())];
      }),
    );
    const skipped = Object.keys(nodes).filter((id) => nodes[id]!.status === 'completed');
    await transition(this.runs, run, 'continue', {
      patch: { nodes, cwd, resumePending: false, error: null, finishedAt: null, definition: resolved.definition },
      events: [{ type: 'run_resumed', fields: { skipped } }],
    });
    await this.#enqueue(run);
    return run;
  }

  /**
   * A run made pending: queued here; or, with a shared database, claimed by this server at once when
   * it has a free slot, else offered to every server.
   */
  async #enqueue(run: RunRecord, front = false): Promise<void> {
    if (!this.#claims) {
      this.runs.hold(run);
      if (front) this.#queue.unshift(run);
      else this.#queue.push(run);
      return this.#pump();
    }
    if (!this.#closed && this.#active.size + this.#reserved < this.deps.limits.maxConcurrentRuns) {
      this.#reserved++;
      try {
        if (await this.#claims.claimRun(run.id)) return void this.#launch(run);
      } finally {
        this.#reserved--;
      }
    }
    // Written as held by this server (so no other claimed it before its events were written): let it go.
    await this.#claims.unclaim(run.id);
    this.#claims.announcePending().catch((error: unknown) => this.deps.logger.warn('run.announce_failed', { error: (error as Error).message }));
    this.#pump();
  }

  #pump(): void {
    if (this.#claims) return void this.#claimRuns();
    while (!this.#closed && this.#active.size < this.deps.limits.maxConcurrentRuns && this.#queue.length > 0) {
      const run = this.#queue.shift()!;
      if (run.status === 'pending') void this.#launch(run);
    }
  }

  /**
   * Claims as many pending runs as this server has free slots (the database hands each to one
   * server) and launches them; one claim at a time, again while more may be waiting.
   */
  async #claimRuns(): Promise<void> {
    if (this.#claiming) {
      this.#claimAgain = true;
      return;
    }
    this.#claiming = true;
    try {
      do {
        this.#claimAgain = false;
        const free = this.deps.limits.maxConcurrentRuns - this.#active.size - this.#reserved;
        if (this.#closed || free <= 0) break;
        const ids = await this.#claims!.claim(free);
        for (const id of ids) {
          const run = await this.runs.get(id);
          if (run?.status === 'pending' && !this.#closed) void this.#launch(this.runs.hold(run));
          else if (run?.status === 'pending') await this.#claims!.unclaim(id);
        }
        if (ids.length === free) this.#claimAgain = true;
      } while (this.#claimAgain);
    } catch (error) {
      this.deps.logger.error('run.claim_failed', { error: (error as Error).message });
    } finally {
      this.#claiming = false;
    }
  }

  /** Executes a run in a slot; `recorded` is what must be on disk before it goes on (an approval). */
  #launch(run: RunRecord, recorded: Promise<void> = Promise.resolve()): Promise<void> {
    const controller = new AbortController();
    this.runs.hold(run);
    const done = (async () => {
      let failure: string | null = null;
      try {
        await recorded;
        const validation = validateWorkflowSource(run.definition);
        if (!validation.ok) throw new Error(`the workflow definition is no longer valid: ${validation.errors.join('; ')}`);
        // An approved run with a free slot is already `running` (see `approve`).
        if (run.status === 'pending') {
          const cwd = await this.#placeHere(run);
          await transition(this.runs, run, 'launch', {
            patch: { startedAt: run.startedAt ?? now(), ...(cwd !== run.cwd ? { cwd } : {}) },
            events: [{ type: 'run_started', fields: {} }],
          });
        }
        await executeRun(
          {
            runs: this.runs,
            logger: this.deps.logger,
            parallelism: this.deps.limits.runParallelism ?? RUN_PARALLELISM,
            prompt: {
              agents: this.deps.agents,
              assistants: this.deps.assistants,
              loadCommand: (name, cwd) => this.deps.resolver.loadCommand(name, cwd),
              firstEventTimeoutMs: this.deps.limits.agentFirstEventTimeoutMs,
              logger: this.deps.logger,
              assertAgentAllowed: (workspaceId, cwd) => this.deps.places.assertAgentAllowed(workspaceId, cwd),
            },
            workspaceEnv: run.workspaceId ? await this.deps.places.env(run.workspaceId) : {},
          },
          run,
          validation.workflow,
          controller.signal,
        );
      } catch (error) {
        // Stopped by another server before it could start here (a cancel of the pending run won): not ours to finish.
        if (error instanceof RunChangedElsewhere && run.status === 'pending') return;
        failure = (error as Error).message;
        this.deps.logger.error('run.internal_error', { runId: run.id, error: failure, stack: (error as Error).stack });
      }
      try {
        await this.#finish(run, controller.signal.reason as StopReason | undefined, failure);
      } catch (error) {
        // The store refused the final write (disk full…): the run stays as last saved, the server stays up.
        this.deps.logger.error('run.finish_failed', { runId: run.id, error: (error as Error).message });
        this.#notifySettled(run);
      }
    })();
    this.#active.set(run.id, { controller, done });
    void done.finally(() => {
      this.#active.delete(run.id);
      if (isSettled(run.status) || run.status === 'pending') this.runs.release(run);
      this.#pump();
    });
    return recorded;
  }

  /**
   * With a shared database, a run on a workspace executes in a worktree the executing server makes
   * in its own home, from its own clone (docs/decisions.md, Workspaces); a run that has completed
   * nodes (resumed, approved) keeps the worktree holding their changes, or fails (`worktree_gone`):
   * the run is bound to that home, so only its servers claim it (docs/scaling.md). One server alone
   * placed it at start.
   */
  async #placeHere(run: RunRecord): Promise<string> {
    if (!this.deps.places.atLaunch || !run.workspaceId) return run.cwd;
    const resumed = Object.values(run.nodes).some((state) => state.status === 'completed');
    const place = resumed
      ? await this.deps.places.resume(run.workspaceId, run.id, { here: true })
      : await this.deps.places.place(run.workspaceId, run.id, { here: true });
    // Its worktree is in this home now: an approval or a resume continues it here, on a server of this home.
    if (place.worktree) await this.#claims?.bindHome(run.id);
    return place.cwd;
  }

  /** The one place a run reaches its resulting state after execution or an outside stop. */
  async #finish(run: RunRecord, reason: StopReason | undefined, failure: string | null): Promise<void> {
    await finishRun(this.runs, run, reason, failure);
    this.#notifySettled(run);
  }

  #notifySettled(run: RunRecord): void {
    if (!isSettled(run.status)) return;
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
    if (this.#claims && run.status === 'running') return this.#stopElsewhere(run, reason);
    this.#queue = this.#queue.filter((queued) => queued.id !== run.id);
    try {
      await this.#finish(run, reason, null);
    } catch (error) {
      // A pending run another server started meanwhile: that server stops it.
      const now = error instanceof RunChangedElsewhere ? await this.runs.get(run.id) : undefined;
      if (now?.status === 'running') return this.#stopElsewhere(now, reason);
      throw error;
    }
    return run;
  }

  /**
   * A run another server executes: that server is told (LISTEN/NOTIFY), stops it as its own (the
   * whole process tree), and writes the outcome; this one answers once the store shows it. A server
   * that died meanwhile never answers: its lease runs out and the run ends interrupted instead.
   */
  async #stopElsewhere(run: RunRecord, reason: ForwardedStop): Promise<RunRecord> {
    await this.#claims!.forwardStop(run.id, reason);
    const deadline = Date.now() + 2 * this.deps.limits.runLeaseMs! + 10_000;
    let current: RunRecord | undefined = run;
    while (current?.status === 'running' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      current = await this.runs.get(run.id);
    }
    if (!current) throw notFound('run_not_found', `No run '${run.id}'.`);
    if (current.status !== (reason === 'cancel' ? 'cancelled' : 'abandoned')) assertOperationAllowed(reason, current.status);
    return current;
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
    if (active && run.status === 'paused') await active.done;
    return run;
  }

  /** The first waiting gate (definition order) completes with the comment as its output. */
  async approve(runId: string, comment?: string): Promise<RunRecord> {
    const run = await this.#settledRun(runId);
    assertOperationAllowed('approve', run.status);
    // A run whose worktree is in another home continues on a server of that home (docs/scaling.md): offered, not launched here.
    const elsewhere = this.#claims !== undefined && run.workspaceId !== null && (await this.#claims.boundElsewhere(run.id));
    const [gateId, gate] = waitingGate(run);
    const at = now();
    moveNode(gate, 'approve', { output: comment ?? '', finishedAt: at, durationMs: gate.startedAt ? Date.parse(at) - Date.parse(gate.startedAt) : null });
    // With a free slot the run carries on at once; with every slot taken it waits `pending` at
    // the head of the queue (docs/decisions.md, "Runs").
    const events: EventSpec[] = [
      { type: 'run_approved', fields: { nodeId: gateId, comment: comment ?? '' } },
      { type: 'node_completed', fields: { nodeId: gateId, output: comment ?? '', durationMs: gate.durationMs } },
    ];
    if (!elsewhere && !this.#closed && this.#active.size < this.deps.limits.maxConcurrentRuns) {
      // The slot is taken now (the status is set synchronously), so no queued run can claim it meanwhile.
      await this.#launch(run, transition(this.runs, run, 'approve', { to: 'running', events }));
    } else {
      await transition(this.runs, run, 'approve', { to: 'pending', events });
      await this.#enqueue(run, true);
    }
    return run;
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

  async resume(runId: string): Promise<RunRecord> {
    const run = await this.runs.resolve(runId);
    assertOperationAllowed('resume', run.status);
    await transition(this.runs, run, 'resume', { patch: { resumePending: true } });
    return run;
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
    await this.#claims?.close();
  }
}
