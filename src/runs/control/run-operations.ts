import type { EngineDeps } from './engine-deps.js';
import { waitingGate } from './finish.js';
import { DomainError } from '../../shared/errors.js';
import { sumCost } from '../model/node-state.js';
import { assertResumableSpend } from '../executor/spend-cap.js';
import { cancelAutoResume } from '../wake-ups/auto-resume.js';
import type { RunStore } from '../storage/run-store.js';
import type { RunExecutions } from './run-execution.js';
import { assertOperationAllowed, moveNode, type EventSpec } from '../model/lifecycle.js';
import { RunChangedElsewhere, transition } from '../storage/transition.js';
import { deliverSignal, endDueWaits } from '../wake-ups/waits.js';
import { isNodeDone, type RunRecord } from '../model/types.js';
import { tracedRun } from '../executor/trace-facts.js';

const now = () => new Date().toISOString();

/**
 * The user's operations on an existing run, each through the transition table (lifecycle.ts):
 * stopping it (cancel, abandon), continuing a paused or waiting one (approve, signal, a wait's end),
 * rejecting it, marking a failed one to be resumed, deleting it.
 */
export class RunOperations {
  constructor(
    private readonly deps: Pick<EngineDeps, 'coordination' | 'bus' | 'worktrees' | 'tracing'>,
    private readonly runs: RunStore,
    private readonly executions: RunExecutions,
  ) {}

  cancel(runId: string): Promise<RunRecord> {
    return this.#stop(runId, 'cancel');
  }

  abandon(runId: string): Promise<RunRecord> {
    return this.#stop(runId, 'abandon');
  }

  /** Cancel or abandon: of a failed run, its auto-resume is called off; otherwise the run is stopped. */
  async #stop(runId: string, op: 'cancel' | 'abandon'): Promise<RunRecord> {
    const run = await this.executions.settledRun(runId);
    const calledOff = await cancelAutoResume(this.runs, run, op);
    if (calledOff) return calledOff;
    assertOperationAllowed(op, run.status);
    return this.executions.stop(run, op);
  }

  /** The first waiting gate (definition order) completes with the comment as its output. */
  async approve(runId: string, comment?: string): Promise<RunRecord> {
    const run = await this.executions.settledRun(runId);
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
    // the head of the queue (docs/decisions.md, "Approval gates").
    const events: EventSpec[] = [
      { type: 'run_approved', fields: { nodeId: gateId, comment: comment ?? '' } },
      { type: 'node_completed', fields: { nodeId: gateId, output: comment ?? '', durationMs: gate.durationMs } },
    ];
    // Told before the run goes on, which may be at once and in this span.
    this.#traceApproval(run, gateId, 'approved', gate.durationMs);
    const carriedOn = await this.#carryOn(run, 'approve', events, elsewhere, { nodes: { ...run.nodes, [gateId]: gate } }).catch((error: unknown) => {
      this.deps.tracing?.endRun(run.id, { status: run.status });
      throw error;
    });
    // Continued by a server of another home, in a span of its own there: none stays open here for it.
    if (elsewhere) this.deps.tracing?.endRun(run.id, { status: carriedOn.status });
    return carriedOn;
  }

  /** A run whose worktree is in another home continues on a server of that home (docs/scaling.md): offered, not launched here. */
  async #boundElsewhere(run: RunRecord): Promise<boolean> {
    return run.workspaceId !== null && (await this.deps.coordination.runs.boundElsewhere(run.id));
  }

  /**
   * A paused or waiting run goes on (approve, a wait's end): with a free slot at once, else `pending`
   * at the head of the queue (docs/decisions.md, "Approval gates"). The change is written only over the state
   * it was decided on, so of two servers continuing one run, one wins and the other is told (409).
   */
  async #carryOn(run: RunRecord, change: 'approve' | 'wake', events: EventSpec[], elsewhere: boolean, nodes: Partial<RunRecord>): Promise<RunRecord> {
    const patch = change === 'wake' ? { ...nodes, wakeAt: null } : nodes;
    if (!elsewhere && this.executions.hasFreeSlot()) {
      // The slot is taken now (launch takes it synchronously), so no queued run can claim it meanwhile.
      return this.executions.launch(run, transition(this.runs, run, change, { to: 'running', events, patch }));
    }
    return this.executions.enqueue(await transition(this.runs, run, change, { to: 'pending', events, patch }), true);
  }

  /**
   * `POST …/signal`: the node waiting for `event` completes with the payload as its output and the
   * run goes on (waits.ts; 409 `not_waiting` when no node waits for it).
   */
  async signal(runId: string, event: string, payload?: unknown): Promise<RunRecord> {
    const run = await this.executions.settledRun(runId);
    const elsewhere = run.status === 'waiting' && (await this.#boundElsewhere(run));
    const { nodes, events } = await deliverSignal(this.runs.artifactsDir(run.id), run, event, payload);
    return this.#carryOn(run, 'wake', events, elsewhere, { nodes: { ...run.nodes, ...nodes } });
  }

  /** The wake-up of a waiting run came (wake-ups.ts): its due waits end, and it goes on. */
  async wake(found: RunRecord): Promise<void> {
    const run = await this.executions.settledRun(found.id);
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
    const run = await this.executions.settledRun(runId);
    assertOperationAllowed('reject', run.status);
    const [gateId, gate] = waitingGate(run);
    const at = now();
    const why = reason ?? '';
    const nodes = { ...run.nodes, [gateId]: moveNode(gate, 'close', { error: why ? `rejected: ${why}` : 'rejected', finishedAt: at }) };
    for (const [id, state] of Object.entries(nodes)) if (!isNodeDone(state.status)) nodes[id] = moveNode(state, 'close', { error: 'rejected' });
    this.#traceApproval(run, gateId, 'rejected', gate.startedAt ? Date.parse(at) - Date.parse(gate.startedAt) : null);
    const rejected = await transition(this.runs, run, 'reject', {
      patch: { nodes, rejectReason: why || null, finishedAt: at, costUsd: sumCost(Object.values(nodes)) },
      events: [
        { type: 'run_rejected', fields: { nodeId: gateId, reason: why } },
        { type: 'run_cancelled', fields: { reason: 'rejected' } },
      ],
    }).catch((error: unknown) => {
      // Another change won (409): the run goes on as that change says, not in a span left open here.
      this.deps.tracing?.endRun(run.id, { status: run.status });
      throw error;
    });
    this.executions.notifySettled(rejected);
    return rejected;
  }

  /**
   * The gate's decision, an `approval` event on the run's span: the one its pause left open here, or a
   * new one in its trace, which the execution that follows (here) goes on in (docs/decisions.md, "Traces").
   */
  #traceApproval(run: RunRecord, nodeId: string, decision: 'approved' | 'rejected', waitedMs: number | null | undefined): void {
    this.deps.tracing?.run(tracedRun(run)).event({ name: 'approval', nodeId, decision, waitedMs });
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
    // A run deleted while paused or waiting: the span its pause left open here ends.
    this.deps.tracing?.endRun(run.id, { status: 'deleted' });
    // Published, not persisted: the log it would go to was removed with the run.
    this.deps.bus.publish({ type: 'run_deleted', at: now(), runId: run.id, conversationId: run.conversationId, platformId: run.platformId });
    if (run.workspaceId) await this.deps.worktrees.release(run.id);
    return run;
  }
}
