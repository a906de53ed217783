import { renderPrompt } from '../../workflows/index.js';
import { frozenDefinition } from '../model/frozen-definition.js';
import { autoResumeAppointment } from '../wake-ups/auto-resume.js';
import { isTolerated, settledStatus } from '../model/dag-rules.js';
import type { StopReason } from './engine-deps.js';
import { runVariables } from '../executor/run-variables.js';
import { moveNode } from '../model/lifecycle.js';
import { transition } from '../storage/transition.js';
import { sumCost } from '../model/node-state.js';
import type { RunStore } from '../storage/run-store.js';
import { isNodeDone, type NodeState, type RunRecord } from '../model/types.js';
import { waitingFields, wakeAtOf } from '../wake-ups/waits.js';

/** The gate an approve or reject acts on: the first one waiting, in definition order. */
export const waitingGate = (run: RunRecord) => Object.entries(run.nodes).find(([, s]) => s.status === 'waiting_approval')!;

/** The one place a run reaches its resulting state after execution or an outside stop; resolves to its snapshot so. */
export async function finishRun(
  runs: RunStore,
  run: RunRecord,
  reason: StopReason | undefined,
  failure: string | null,
  /** The stable code of a failure svc decided itself (`budget_exceeded`). */
  failureCode: string | null = null,
  /** `SVC_AUTO_RESUME_ON_LIMIT`: auto-resume for workflows that do not say (auto-resume.ts). */
  autoResumeByDefault = false,
): Promise<RunRecord> {
  const at = new Date().toISOString();
  // The run's nodes as they end, each node's new state replacing its old one (the snapshot stays as it was).
  const nodes = { ...run.nodes };
  const change = (when: (state: NodeState) => boolean, to: (state: NodeState) => NodeState) => {
    for (const [id, state] of Object.entries(nodes)) if (when(state)) nodes[id] = to(state);
  };
  const closeOpenNodes = (error: string, code?: string) =>
    change(
      (state) => !isNodeDone(state.status),
      (state) => moveNode(state, 'close', { error, ...(code ? { errorCode: code } : {}), finishedAt: state.startedAt ? at : null }),
    );
  /** Nodes the executor stopped say `cancelled`; `why` names what stopped them, `code` the same as a code (the spend cap's). */
  const nameStopped = (why: string, code?: string) =>
    change(
      (state) => state.status === 'cancelled' && state.error === 'cancelled',
      (state) => ({ ...state, error: why, ...(code ? { errorCode: code } : {}) }),
    );
  const costUsd = sumCost(Object.values(run.nodes));
  if (reason === 'cancel' || reason === 'abandon') {
    const why = reason === 'cancel' ? 'cancelled' : 'abandoned';
    nameStopped(why);
    closeOpenNodes(why);
    return transition(runs, run, reason, {
      // A waiting run stopped keeps no wake-up.
      patch: { nodes, costUsd, finishedAt: at, wakeAt: null },
      events: [reason === 'cancel' ? { type: 'run_cancelled', fields: {} } : { type: 'run_abandoned', fields: {} }],
    });
  }
  if (reason === 'shutdown') {
    // The executor marks the nodes it stopped `cancelled`; in an executing run only this stop can
    // have done that, and those nodes were interrupted like the run (as after a crash).
    change(
      (state) => state.status === 'running' || state.status === 'cancelled',
      (state) => moveNode(state, 'interrupt', { error: 'interrupted', errorCode: 'interrupted', finishedAt: state.finishedAt ?? at }),
    );
    return transition(runs, run, 'interrupt', {
      patch: { nodes, costUsd, error: 'interrupted', errorCode: 'interrupted', finishedAt: at },
      events: [{ type: 'run_failed', fields: { error: 'interrupted', code: 'interrupted' } }],
    });
  }
  const status = failure ? 'failed' : settledStatus(run.nodes);
  if (status === 'paused') {
    const [gate] = waitingGate(run);
    return transition(runs, run, 'pause', {
      patch: { costUsd },
      events: [{ type: 'run_paused', fields: { nodeId: gate, message: gateMessage(runs, run, gate) } }],
    });
  }
  if (status === 'waiting') return transition(runs, run, 'wait', { patch: { costUsd, wakeAt: wakeAtOf(run) }, events: [waitingFields(run)] });
  if (status === 'failed') {
    // A tolerated failure (`continue_on_error`) is not why the run failed.
    const failed = Object.entries(run.nodes).filter(([, s]) => s.status === 'failed' && !isTolerated(s));
    const error = failure ?? (failed.length ? failed.map(([id, s]) => `${id}: ${s.error}`).join('; ') : 'some nodes could not run');
    // Nodes the executor stopped for the code (the spend cap) say so rather than `cancelled`.
    if (failureCode) nameStopped(failureCode, failureCode);
    closeOpenNodes(failureCode ?? 'not run', failureCode ?? undefined);
    // The run can go on once every limit its nodes hit has reset: the latest of their times.
    const resumeAt =
      failed
        .map(([, s]) => s.resumeAt)
        .filter((t): t is string => !!t)
        .sort()
        .at(-1) ?? null;
    // The run's code: svc's own stop, else a usage limit (what a resume waits for), else the code of
    // its first failed node (a stall, a timeout…), so a script reads why without parsing `error`.
    const code = failureCode ?? (resumeAt ? 'usage_limit' : (failed.find(([, s]) => s.errorCode)?.[1].errorCode ?? null));
    // Recorded with the failure itself, so no restart can come between the two; announced first,
    // so a follower that stops at `run_failed` has seen it. `wakeAt` is the same time: what the
    // server's timer keeps (wake-ups.ts); `autoResumeAt` says what kind of wake-up it is.
    const autoResumeAt = autoResumeAppointment(run, code, resumeAt, autoResumeByDefault);
    return transition(runs, run, 'fail', {
      patch: { nodes, costUsd, error, errorCode: code, resumeAt, autoResumeAt, wakeAt: autoResumeAt, finishedAt: at },
      events: [
        ...(autoResumeAt ? [{ type: 'auto_resume_scheduled' as const, fields: { at: autoResumeAt } }] : []),
        { type: 'run_failed', fields: { error, ...(code ? { code } : {}), ...(resumeAt ? { resumeAt } : {}) } },
      ],
    });
  }
  return transition(runs, run, 'complete', {
    patch: { costUsd, finishedAt: at, error: null },
    events: [{ type: 'run_completed', fields: { costUsd } }],
  });
}

/** The gate's message with the run's variables and upstream outputs filled in, as prompts get them. */
function gateMessage(runs: RunStore, run: RunRecord, gateId: string): string {
  const validation = frozenDefinition(run);
  const action = validation.ok ? validation.workflow.nodes.find((n) => n.id === gateId)?.action : undefined;
  if (action?.kind !== 'approval') return '';
  // The stored outputs (64 KiB at most each: a gate's message is stored and shown whole); a cut one
  // says so rather than passing for the whole output.
  const outputs = Object.fromEntries(
    Object.entries(run.nodes).flatMap(([id, s]) =>
      s.status === 'completed' ? [[id, `${s.output ?? ''}${s.outputTruncated ? ` … (cut at 64 KiB; the whole output is in ${id}.out)` : ''}`]] : [],
    ),
  );
  return renderPrompt(action.message, runVariables(run, runs.artifactsDir(run.id)), outputs);
}
