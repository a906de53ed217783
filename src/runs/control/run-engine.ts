import type { EngineDeps, RecoveryOptions, RunFilter } from './engine-deps.js';
import type { StartRunRequest } from '../model/start-request.js';
import type { RunEvent } from '../model/events.js';
import { DomainError } from '../../shared/errors.js';
import { definitionChanged } from './definition-version.js';
import { autoResumeKind } from '../wake-ups/auto-resume.js';
import { RunStore } from '../storage/run-store.js';
import type { RunEventFilter } from '../storage/run-repository.js';
import type { RunPage } from '../storage/run-queries.js';
import type { RunLocation } from '../../coordination/index.js';
import { RunWakeUps } from '../wake-ups/wake-ups.js';
import { RunExecutions } from './run-execution.js';
import { RunOperations } from './run-operations.js';
import { RunStarts } from './run-start.js';
import type { RunRecord } from '../model/types.js';
import type { NodeStatus } from '../model/statuses.js';
import { readNodeLog, type NodeLogPage } from '../storage/node-log-reader.js';
import { join } from 'node:path';

export type { EngineDeps, EngineLimits, RecoveryOptions, RunFilter, RunLink } from './engine-deps.js';
export type { StartRunRequest } from '../model/start-request.js';

export { RUN_PARALLELISM } from './launch.js';

/**
 * The run engine: the one facade the server, the CLI's offline mode, webhooks, schedules and
 * conversations use. It hands each operation to the module that does it: starting a run
 * (run-start.ts), executing runs in this process's slots, FIFO behind `SVC_MAX_CONCURRENT_RUNS`
 * (run-execution.ts), the user's operations on an existing run through the transition table
 * (run-operations.ts), and the server's timer for runs' wake-ups (wake-ups.ts).
 */
export class RunEngine {
  readonly #executions: RunExecutions;
  readonly #starts: RunStarts;
  readonly #operations: RunOperations;
  /** The server's timer for runs' wake-up times (wake-ups.ts); undefined outside a server. */
  #wakeUps: RunWakeUps | undefined;

  private constructor(
    private readonly deps: EngineDeps,
    /** The run records and events (benchmarks measure it directly; routes ask the engine). */
    readonly runs: RunStore,
    options: RecoveryOptions,
  ) {
    this.#executions = new RunExecutions(deps, runs, options, (wakeAt) => this.#wakeUps?.scheduled(wakeAt));
    this.#starts = new RunStarts(deps, runs, this.#executions);
    this.#operations = new RunOperations(deps, runs, this.#executions);
  }

  /** `options.recover`: this process executes runs, starting with what its predecessor left (recovery.ts); else it never does. */
  static async open(deps: EngineDeps, options: RecoveryOptions): Promise<RunEngine> {
    const engine = new RunEngine(deps, await RunStore.open(deps.store, deps.bus, deps.runStorage), options);
    await engine.#executions.open(options.recover);
    return engine;
  }

  get stats() {
    return this.#executions.stats;
  }

  /** This server's id among those sharing the database; undefined when this process owns every run. */
  get serverId(): string | undefined {
    return this.deps.coordination.serverId;
  }

  /** Which server holds the run and which home its worktree is in (the run detail); undefined when this process owns every run. */
  location(runId: string): Promise<RunLocation> | undefined {
    return this.deps.coordination.runs.location(runId);
  }

  /** The servers sharing the database and the runs each executes (`/api/health`); undefined when this process owns every run. */
  share(): Promise<{ servers: number; running: Record<string, number> }> | undefined {
    return this.deps.coordination.runs.share();
  }

  /**
   * The server keeps the runs' wake-ups (docs/decisions.md, "Waits and signals",
   * "Auto-resume"): waits and auto-resumes that came due while no server ran are kept now, later
   * ones when their time comes. With a shared database every `pollMs` too, for the wake-ups
   * other servers' runs made. Not awaited by start-up: keeping a due auto-resume starts a run, which
   * the server's first answer need not wait for (the first check runs at once all the same).
   */
  keepWakeUps(pollMs?: number): void {
    const waits = { name: 'wait', statuses: ['waiting'] as const, keep: (run: RunRecord) => this.#operations.wake(run) };
    const autoResumes = autoResumeKind(this.runs, this, this.deps.logger);
    this.#wakeUps = new RunWakeUps(this.runs, [waits, autoResumes], this.deps.logger, pollMs);
    void this.#wakeUps.start();
  }

  /** A new run, or a failed one of the conversation marked to resume continued (run-start.ts). */
  start(request: StartRunRequest): Promise<RunRecord> {
    return this.#starts.start(request);
  }

  /** Resolves when the run is terminal or paused (the CLI's foreground mode and `--wait`). */
  waitUntilSettled(runId: string): Promise<RunRecord> {
    return this.#executions.waitUntilSettled(runId);
  }

  cancel(runId: string): Promise<RunRecord> {
    return this.#operations.cancel(runId);
  }

  abandon(runId: string): Promise<RunRecord> {
    return this.#operations.abandon(runId);
  }

  /** The first waiting gate (definition order) completes with the comment as its output. */
  approve(runId: string, comment?: string): Promise<RunRecord> {
    return this.#operations.approve(runId, comment);
  }

  /** `POST …/signal`: the node waiting for `event` completes with the payload as its output and the run goes on. */
  signal(runId: string, event: string, payload?: unknown): Promise<RunRecord> {
    return this.#operations.signal(runId, event, payload);
  }

  reject(runId: string, reason?: string): Promise<RunRecord> {
    return this.#operations.reject(runId, reason);
  }

  /** Marks a failed run to be continued; `maxCostUsd` replaces its spend cap (spend-cap.ts). */
  resume(runId: string, options: { maxCostUsd?: number } = {}): Promise<RunRecord> {
    return this.#operations.resume(runId, options);
  }

  delete(runId: string): Promise<RunRecord> {
    return this.#operations.delete(runId);
  }

  /**
   * A run as it settles: one whose status turned `paused` or `waiting` a moment ago is read once its
   * executor has finished, so what follows (landing its branch) sees its worktree at rest.
   */
  settled(runId: string): Promise<RunRecord> {
    return this.#executions.settledRun(runId);
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

  /**
   * A page of a node's `<node>.log` from byte `offset` (`svc runs logs`), with the node's state, so a
   * follower knows when the log is complete: once its node is no longer running or waiting.
   */
  async nodeLog(runId: string, nodeId: string, offset = 0): Promise<NodeLogPage & { runId: string; nodeId: string; status: NodeStatus }> {
    const run = await this.runs.resolve(runId);
    const state = Object.hasOwn(run.nodes, nodeId) ? run.nodes[nodeId] : undefined;
    if (!state) throw new DomainError('node_not_found', `Run ${run.id} has no node '${nodeId}'; its nodes: ${Object.keys(run.nodes).join(', ')}.`);
    const page = await readNodeLog(join(this.runs.artifactsDir(run.id), `${nodeId}.log`), offset);
    return { runId: run.id, nodeId, status: state.status, ...page };
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
  whenIdle(): Promise<void> {
    return this.#executions.whenIdle();
  }

  /** Shutdown: executing runs stop as `failed`/`interrupted` (resumable); queued ones stay `pending`. */
  async close(): Promise<void> {
    this.#executions.closeSlots();
    await this.#wakeUps?.close();
    await this.#executions.stopAll();
    await this.deps.coordination.runs.close();
  }
}
