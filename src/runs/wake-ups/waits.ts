import { writeOutputFile } from '../storage/node-output-file.js';
import { join } from 'node:path';
import { DomainError } from '../../shared/errors.js';
import { formatDuration, type NodeAction } from '../../workflows/index.js';
import type { EventSpec } from '../model/lifecycle.js';
import { moveNode } from '../model/lifecycle.js';
import { capUtf8 } from '../model/node-state.js';
import { frozenDefinition } from '../model/frozen-definition.js';
import type { NodeState, RunRecord } from '../model/types.js';

/**
 * Durable waits (docs/decisions.md, "Waits and signals"): what a wait node records when it starts
 * waiting, when its run is due, and how a wait ends — by its time, by a signal of its event, or by
 * its event's timeout. The timer and the claim are wake-ups.ts's; continuing the run is the
 * engine's, by the path an approval takes.
 */

type WaitAction = Extract<NodeAction, { kind: 'wait' }>;

/** A wait node starts waiting: its end (or its event's timeout) is on the record, so a restart keeps its place. */
export function holdWait(state: NodeState, action: WaitAction, at: Date): NodeState {
  const lasts = action.forMs ?? action.timeoutMs;
  return moveNode(state, 'hold', {
    startedAt: at.toISOString(),
    ...(lasts !== undefined ? { waitUntil: new Date(at.getTime() + lasts).toISOString() } : {}),
    ...(action.event !== undefined ? { waitEvent: action.event } : {}),
  });
}

const waitingNodes = (run: RunRecord) => Object.entries(run.nodes).filter(([, state]) => state.status === 'waiting');

/** When the server continues the run on its own: the earliest end of its waits; null when it waits only for events. */
export function wakeAtOf(run: RunRecord): string | null {
  return (
    waitingNodes(run)
      .map(([, state]) => state.waitUntil)
      .filter((t): t is string => t !== undefined)
      .sort()[0] ?? null
  );
}

/** The `run_waiting` event's fields: each waiting node with what it waits for. */
export function waitingFields(run: RunRecord): Extract<EventSpec, { type: 'run_waiting' }> {
  const nodes = waitingNodes(run).map(([nodeId, state]) => ({
    nodeId,
    ...(state.waitUntil ? { until: state.waitUntil } : {}),
    ...(state.waitEvent ? { event: state.waitEvent } : {}),
  }));
  return { type: 'run_waiting', fields: { nodes, wakeAt: wakeAtOf(run) } };
}

/** Whether the run's definition says `continue_on_error: true` for the node. */
function toleratesFailure(run: RunRecord, nodeId: string): boolean {
  const validation = frozenDefinition(run);
  return validation.ok && validation.workflow.nodes.find((node) => node.id === nodeId)?.continueOnError === true;
}

const durationOf = (state: NodeState, at: string) => (state.startedAt ? Date.parse(at) - Date.parse(state.startedAt) : null);

/** How waits end: the nodes that changed (to patch the run's next snapshot with) and the events that say so. */
export interface WaitsEnded {
  nodes: Record<string, NodeState>;
  events: EventSpec[];
}

/** A wait ends with an output (its time came: '', a signal: the payload). */
async function arrive(artifactsDir: string, run: RunRecord, nodeId: string, by: 'time' | 'signal', output: string): Promise<WaitsEnded> {
  const waiting = run.nodes[nodeId]!;
  const at = new Date().toISOString();
  const capped = capUtf8(output);
  // The whole output is on disk before the record says `completed`, as a node's that ran (executor.ts).
  await writeOutputFile(join(artifactsDir, `${nodeId}.out`), output);
  const state = moveNode(waiting, 'arrive', { output: capped.text, outputTruncated: capped.truncated, finishedAt: at, durationMs: durationOf(waiting, at) });
  return {
    nodes: { [nodeId]: state },
    events: [
      { type: 'run_woken', fields: { nodeId, by, ...(state.waitEvent ? { event: state.waitEvent } : {}) } },
      { type: 'node_completed', fields: { nodeId, durationMs: state.durationMs, output: capped.text, attempts: 0 } },
    ],
  };
}

/** The waits of a waiting run whose time has come by `at`: a `for` wait ends, an event wait fails `wait_timeout`. */
export async function endDueWaits(artifactsDir: string, run: RunRecord, at: string): Promise<WaitsEnded> {
  const ended: WaitsEnded = { nodes: {}, events: [] };
  for (const [nodeId, state] of waitingNodes(run)) {
    if (state.waitUntil === undefined || state.waitUntil > at) continue;
    if (state.waitEvent === undefined) {
      const arrived = await arrive(artifactsDir, run, nodeId, 'time', '');
      Object.assign(ended.nodes, arrived.nodes);
      ended.events.push(...arrived.events);
      continue;
    }
    const waited = durationOf(state, at);
    // The timeout as written (its end less its start), not the time measured until the timer fired.
    const timeout = state.startedAt ? Date.parse(state.waitUntil) - Date.parse(state.startedAt) : null;
    const error = `wait_timeout: no '${state.waitEvent}' signal${timeout === null ? '' : ` within ${formatDuration(timeout)}`}`;
    // `continue_on_error` on the wait: the run goes on as if the event had come, with no payload.
    const tolerated = toleratesFailure(run, nodeId);
    ended.nodes[nodeId] = moveNode(state, 'expire', {
      error,
      errorCode: 'wait_timeout',
      finishedAt: at,
      durationMs: waited,
      ...(tolerated ? { tolerated: true, output: '' } : {}),
    });
    ended.events.push(
      { type: 'run_woken', fields: { nodeId, by: 'timeout', event: state.waitEvent } },
      {
        type: 'node_failed',
        fields: { nodeId, error, code: 'wait_timeout', attempts: 0, durationMs: waited, ...(tolerated ? { tolerated: true as const } : {}) },
      },
    );
  }
  return ended;
}

/**
 * A signal of `event`: it ends the first node (definition order) of a waiting run that waits for it,
 * with the payload as its output (a string as it is, anything else as JSON). 409 `not_waiting`
 * when no node of the run waits for it now.
 */
export async function deliverSignal(artifactsDir: string, run: RunRecord, event: string, payload: unknown): Promise<WaitsEnded> {
  const waiting = run.status === 'waiting' ? waitingNodes(run) : [];
  const target = waiting.find(([, state]) => state.waitEvent === event);
  if (!target) {
    const events = waiting.flatMap(([, state]) => (state.waitEvent ? [state.waitEvent] : []));
    const why =
      run.status !== 'waiting' ? `it is ${run.status}` : events.length > 0 ? `it waits for ${events.map((e) => `'${e}'`).join(', ')}` : 'it waits for no event';
    throw new DomainError('not_waiting', `No node of run ${run.id} waits for '${event}': ${why}.`, { status: run.status, waitingFor: events });
  }
  const output = payload === undefined ? '' : typeof payload === 'string' ? payload : JSON.stringify(payload);
  return arrive(artifactsDir, run, target[0], 'signal', output);
}
