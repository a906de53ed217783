import type { NodeSpanEnd, RunSpanEnd, TracedRun } from '../../tracing/index.js';
import type { NodeState, RunRecord } from '../model/types.js';
import type { NodeOutcome } from './nodes/types.js';

/**
 * What a run's trace is told of the run and its nodes, read off their records (docs/decisions.md,
 * "Traces"): the tracing room gives the facts their names in a trace.
 */

export const tracedRun = (run: RunRecord): TracedRun => ({ id: run.id, workflow: run.workflow, trigger: run.trigger, traceparent: run.traceparent });

/** The run as it ended (or stands, when it stops in this process without ending). */
export const runSpanEnd = (run: RunRecord): RunSpanEnd => ({
  status: run.status,
  errorCode: run.errorCode,
  costUsd: run.costUsd,
  peakRssBytes: run.peakRssBytes ?? undefined,
});

/** The node as it ended; its agent as the last successful attempt reported it. */
export function nodeSpanEnd(state: NodeState, outcome: NodeOutcome | undefined): NodeSpanEnd {
  return {
    status: state.status,
    errorCode: state.errorCode,
    attempts: state.attempts,
    costUsd: state.costUsd,
    peakRssBytes: state.peakRssBytes ?? undefined,
    cpuSeconds: state.cpuSeconds ?? undefined,
    ...(outcome?.agent
      ? { agent: { assistant: outcome.agent.assistant, requestModel: outcome.agent.requestModel, responseModel: state.model, tokens: state.tokens } }
      : {}),
  };
}
