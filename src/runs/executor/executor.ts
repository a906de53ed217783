import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorkflowDefinition, WorkflowNode } from '../../workflows/index.js';
import { decideNode, isTolerated } from '../model/dag-rules.js';
import { moveNode } from '../model/lifecycle.js';
import { freshNodeState } from '../model/node-state.js';
import { without } from '../model/run-snapshot.js';
import type { RunRecord } from '../model/types.js';
import { holdWait } from '../wake-ups/waits.js';
import { sandboxDecision } from '../../sandbox/index.js';
import { RunMemory } from './node-memory.js';
import { ExecutionState, type ExecutionScope, type ExecutorDeps } from './execution-scope.js';
import { nodeCommits } from './node-commits.js';
import { executeNode } from './node-execution.js';
import { bashRunner } from './nodes/bash.js';
import { bashSandboxDecision } from './nodes/bash-sandbox.js';
import { promptRunner } from './nodes/prompt.js';
import type { NodeRunner } from './nodes/types.js';
import { roundWrites } from './round-writes.js';
import { runVariables } from './run-variables.js';
import { BUDGET_EXCEEDED, budgetStopMessage, recordSpend } from './spend-cap.js';

export type { ExecutorDeps };

const now = () => new Date().toISOString();

/** Outputs of nodes completed earlier (resume, approval after a restart), read back in full. */
async function restoreOutputs(run: RunRecord, artifactsDir: string): Promise<Record<string, string>> {
  const outputs: Record<string, string> = {};
  for (const [id, state] of Object.entries(run.nodes)) {
    // A tolerated failure's output is passed on as a completed node's is.
    if (state.status !== 'completed' && !isTolerated(state)) continue;
    outputs[id] = state.outputTruncated ? await readFile(join(artifactsDir, `${id}.out`), 'utf8').catch(() => state.output ?? '') : (state.output ?? '');
  }
  return outputs;
}

/** Why the executor stopped a run itself: its spend reached its cap (spend-cap.ts). */
export interface RunStop {
  code: typeof BUDGET_EXCEEDED;
  message: string;
}

/**
 * What an execution ends with: the run's last snapshot (its nodes as they ended), why the executor
 * stopped the run itself if it did, or the error it failed with (the run as it got, still).
 */
export interface Executed {
  run: RunRecord;
  stop?: RunStop;
  error?: Error;
}

/**
 * Executes a run's DAG until nothing more can start: a ready queue, not layer by layer — a node
 * starts as soon as its dependencies are done, up to the parallelism limit. Returns when every
 * started node has finished; the caller decides the run's resulting state — a run the executor
 * stopped itself (its spend cap) with the returned reason.
 */
export async function executeRun(
  deps: ExecutorDeps,
  started: RunRecord,
  workflow: WorkflowDefinition,
  outerSignal: AbortSignal,
  // The worktree's HEAD as its setup just left it, for the first node (node-commits.ts).
  { headAfterSetup }: { headAfterSetup?: string | null } = {},
): Promise<Executed> {
  const { runs } = deps;
  const state = new ExecutionState({
    ...started,
    // A run traced for the first time keeps its trace: a later process's spans join it (docs/decisions.md, "Traces").
    ...(!started.traceparent && deps.trace?.traceparent ? { traceparent: deps.trace.traceparent } : {}),
    nodes: Object.fromEntries([
      ...Object.entries(started.nodes),
      ...workflow.nodes.filter((node) => !started.nodes[node.id]).map((node) => [node.id, freshNodeState()]),
    ]),
  });
  const runPrompt = promptRunner(deps.prompt);
  const runners: Record<'bash' | 'prompt' | 'command', NodeRunner> = { bash: bashRunner(deps.prompt.sandbox), prompt: runPrompt, command: runPrompt };
  // Nodes stop when the run is stopped from outside, or when the executor itself fails: nothing
  // may keep running unsupervised under a run that has already ended.
  const internal = new AbortController();
  const signal = AbortSignal.any([outerSignal, internal.signal]);
  const artifactsDir = runs.artifactsDir(state.run.id);
  const outputs = await restoreOutputs(state.run, artifactsDir);
  const running = new Map<string, Promise<void>>();
  let stop: RunStop | undefined;
  // Node progress reaches the record once per scheduling round at most (see `schedule`), not as
  // every node starts and ends: the record is rewritten whole, and two of those per node dominated
  // the cost of a chain. A refused write (another server took the run) stops it at once.
  const rounds = roundWrites({ runs, latest: () => state.run, fence: deps.fenceRounds ?? false, onFailure: () => internal.abort('round_write_failed') });

  const scope: ExecutionScope = {
    deps,
    workflow,
    state,
    runners,
    outputs,
    variables: runVariables(state.run, artifactsDir, deps.port),
    artifactsDir,
    signal,
    commits: deps.worktree && nodeCommits(deps.worktree, state.run, { commit: workflow.commit, knownHead: headAfterSetup }),
    rounds,
    // The run's peak goes on its record with the next round's write, as node progress does.
    memory: new RunMemory(state.run.peakRssBytes, (bytes) => {
      state.run = { ...state.run, peakRssBytes: bytes };
    }),
    /**
     * One agent call's reported cost, counted at once (the run's record is saved with the round):
     * the report that reaches the cap stops every node still running, and no further node starts.
     */
    async spend(nodeId, costUsd) {
      const spent = recordSpend(state.run, nodeId, costUsd);
      state.run = spent.run;
      if (costUsd !== undefined) rounds.changed();
      for (const event of spent.events) await runs.emit(state.run, event.type, event.fields as never);
      if (spent.exceeded && !stop) {
        stop = { code: BUDGET_EXCEEDED, message: budgetStopMessage(state.run) };
        internal.abort(BUDGET_EXCEEDED);
      }
    },
    /**
     * A node waits for an agent slot or for memory (memory-admission.ts), or got it: the node is `waiting` meanwhile, then
     * `running` again (it runs nothing while it waits), said on the node (saved now, so the run's
     * detail shows it while it lasts) and as a `node_waiting` event.
     */
    slotWait(nodeId, waiting) {
      const node = state.node(nodeId);
      if (waiting) state.setNode(nodeId, moveNode(node, 'queue', { waitingFor: waiting }));
      else if (node.status === 'waiting') state.setNode(nodeId, without(moveNode(node, 'dequeue'), 'waitingFor'));
      const said = async () => {
        await runs.emit(state.run, 'node_waiting', { nodeId, waitingFor: waiting || null });
        await rounds.writeNow();
      };
      said().catch((error: unknown) => {
        deps.logger.error('run.event_write_failed', { runId: state.run.id, nodeId, error: (error as Error).message });
      });
    },
  };

  // The nodes worth deciding on: at first all of them, then the dependents of each node that ends.
  // Re-deciding every waiting node after every step made a step O(nodes), a long chain O(nodes²).
  const order = new Map(workflow.nodes.map((node, index) => [node.id, index]));
  const dependents = new Map<string, WorkflowNode[]>();
  for (const node of workflow.nodes) {
    for (const dep of node.dependsOn) {
      const list = dependents.get(dep);
      if (list) list.push(node);
      else dependents.set(dep, [node]);
    }
  }
  const candidates = new Set<WorkflowNode>(workflow.nodes);
  const ended = (node: WorkflowNode) => {
    for (const dependent of dependents.get(node.id) ?? []) candidates.add(dependent);
  };

  // Start everything that can start; skips can unblock further skips, so repeat until stable.
  const schedule = async () => {
    const starting: WorkflowNode[] = [];
    let changed = true;
    while (changed && !signal.aborted) {
      changed = false;
      // Definition order: when the parallelism limit is reached, earlier nodes get the free places.
      const ready = [...candidates].sort((a, b) => order.get(a.id)! - order.get(b.id)!);
      for (const node of ready) {
        const current = state.node(node.id);
        const decision = current.status !== 'pending' || running.has(node.id) ? undefined : decideNode(node, state.run.nodes, outputs);
        // Not pending, or a dependency still open: looked at again when a dependency ends.
        if (!decision || decision.kind === 'wait') {
          candidates.delete(node);
          continue;
        }
        if (decision.kind === 'skip') {
          candidates.delete(node);
          state.setNode(node.id, moveNode(current, 'skip', { reason: decision.reason, finishedAt: now() }));
          await runs.emit(state.run, 'node_skipped', { nodeId: node.id, reason: decision.reason });
          rounds.changed();
          ended(node);
          changed = true;
        } else if (node.action.kind === 'approval') {
          candidates.delete(node);
          state.setNode(node.id, moveNode(current, 'wait', { startedAt: now() }));
          rounds.changed();
        } else if (node.action.kind === 'wait') {
          // It runs nothing: the run settles `waiting` once nothing else can run (waits.ts).
          candidates.delete(node);
          const held = holdWait(current, node.action, new Date());
          state.setNode(node.id, held);
          deps.trace?.event({ name: 'wait', nodeId: node.id, until: held.waitUntil, event: held.waitEvent });
          rounds.changed();
        } else if (running.size + starting.length < deps.parallelism) {
          candidates.delete(node);
          // An agent node's permissions go on its record: what the agent was allowed, as it ran.
          // And whether it runs in its OS sandbox, or why not (`sandboxOff`).
          // A bash node's sandbox too, when it has one (bash-sandbox.ts).
          const agent = node.permissions ? { permissions: node.permissions, ...sandboxDecision(node.permissions, deps.prompt.sandbox.mode) } : undefined;
          const confined = agent ?? (node.action.kind === 'bash' ? bashSandboxDecision(node, state.run, deps.prompt.sandbox) : undefined);
          const begun = moveNode(current, 'start', { ...freshNodeState(), startedAt: now(), ...agent, ...confined });
          // A node run again (resume) starts a new log; what its last one said no longer holds.
          const stale = confined?.sandbox === 'on' ? (['sandboxOff'] as const) : confined ? [] : (['sandbox', 'sandboxOff', 'sandboxDenied'] as const);
          state.setNode(node.id, without(begun, 'logTruncated', 'sandboxWarning', ...stale));
          starting.push(node);
          rounds.changed();
        }
      }
    }
    // The round's record write (round-writes.ts). The processes it starts do not wait for it unless
    // it is their fence: what must be on disk before a node starts is already there — its
    // dependencies' `.out`, written as each ended — and what a crash must find of a started process
    // is its process file, written as it spawns (docs/decisions.md, "Engine overhead"). A round that
    // starts nothing, with nothing left running, is the last: the run's end (or pause, or wait) is
    // written next, durably, with these nodes, so it is not written twice.
    await rounds.endRound(starting.length > 0 || running.size > 0);
    for (const node of starting) {
      running.set(
        node.id,
        executeNode(scope, node).finally(() => {
          running.delete(node.id);
          ended(node);
        }),
      );
    }
  };

  try {
    await schedule();
    // A node can end while a round awaits its save: its dependents are then candidates that no round
    // has seen yet, possibly with nothing left running to wake the loop.
    while (running.size > 0 || (!signal.aborted && candidates.size > 0)) {
      if (running.size > 0) await Promise.race(running.values());
      if (!signal.aborted) await schedule();
    }
    await rounds.settled();
    // The last round's changes (or those of nodes an abort stopped) are not saved here: the caller
    // writes the run's end next, durably and with these nodes (finish.ts: every way a run ends
    // writes them), so a round write first would be one record write per run for nothing.
  } catch (error) {
    internal.abort('executor_failed');
    await Promise.allSettled(running.values());
    await rounds.settled().catch(() => {});
    return { run: state.run, error: error as Error };
  }
  return { run: state.run, ...(stop ? { stop } : {}) };
}
