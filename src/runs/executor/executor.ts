import { writeFileSync } from 'node:fs';
import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../shared/logger.js';
import type { WorkflowDefinition, WorkflowNode } from '../../workflows/index.js';
import { decideNode } from '../model/dag-rules.js';
import type { RunEventFields } from '../model/events.js';
import { moveNode } from '../model/lifecycle.js';
import { openNodeLog } from '../storage/node-log.js';
import { writeOutputFile } from '../storage/node-output-file.js';
import { emptyToolTally, tallyToolCall, type AgentToolCall } from '../../agents/index.js';
import { capUtf8, freshNodeState, OUTPUT_CAP_BYTES } from '../model/node-state.js';
import { runBashNode } from './nodes/bash.js';
import { holdWait } from '../wake-ups/waits.js';
import { processStartTime } from '../../processes/index.js';
import { promptRunner } from './nodes/prompt.js';
import { NODE_RANGE_FIELDS, nodeCommits, type WorktreeCommits } from './node-commits.js';
import { NodeCancelled, NodeFailure, type NodeOutcome, type NodeRunner, type PromptDeps } from './nodes/types.js';
import type { RunStore } from '../storage/run-store.js';
import { BUDGET_EXCEEDED, budgetStopMessage, recordSpend } from './spend-cap.js';
import { withNode, without } from '../model/run-snapshot.js';
import { roundWrites } from './round-writes.js';
import type { NodeState, RunRecord } from '../model/types.js';

export interface ExecutorDeps {
  runs: RunStore;
  logger: Logger;
  /** Nodes of one run executing at once. */
  parallelism: number;
  /** For `prompt` and `command` nodes. */
  prompt: PromptDeps;
  /** The env values of the run's workspace (empty outside one). */
  workspaceEnv: Readonly<Record<string, string>>;
  /** `SVC_AGENT_ENV_ALLOW`: the server's variables every withheld environment gets beyond the base set. */
  envAllow: readonly string[];
  /** A run in a worktree of its own: the git that commits each node's changes (node-commits.ts). */
  worktree?: WorktreeCommits;
  /** `$SVC_PORT`: the free TCP port reserved for this run while it executes (run-ports.ts). */
  port?: number;
  /**
   * Start a round's processes only once the store took its record write: another server may take
   * the run over (coordination `runsMayBeTakenOver`), and a refused write must stop the run before
   * anything more of it starts. Otherwise the processes start as the write is made.
   */
  fenceRounds?: boolean;
}

const now = () => new Date().toISOString();

const abortableDelay = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/** The variables of docs/contract.md, "Workflow files" that every node sees (as text in prompts, as env in bash). */
export function runVariables(run: RunRecord, artifactsDir: string, port?: number): Record<string, string> {
  return {
    ARGUMENTS: run.message,
    USER_MESSAGE: run.message,
    RUN_ID: run.id,
    WORKFLOW_NAME: run.workflow,
    ARTIFACTS_DIR: artifactsDir,
    WORKSPACE_DIR: run.cwd,
    ...run.variables,
    ...(port === undefined ? {} : { SVC_PORT: String(port) }),
  };
}

/** Outputs of nodes completed earlier (resume, approval after a restart), read back in full. */
async function restoreOutputs(run: RunRecord, artifactsDir: string): Promise<Record<string, string>> {
  const outputs: Record<string, string> = {};
  for (const [id, state] of Object.entries(run.nodes)) {
    if (state.status !== 'completed') continue;
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
export async function executeRun(deps: ExecutorDeps, started: RunRecord, workflow: WorkflowDefinition, outerSignal: AbortSignal): Promise<Executed> {
  const { runs } = deps;
  // The run's latest snapshot. While it executes, only this executor changes it: every change makes
  // the next snapshot in one synchronous step (so none is lost across an await), and each
  // scheduling round saves the latest (docs/decisions.md, "Run snapshots").
  let run: RunRecord = {
    ...started,
    nodes: Object.fromEntries([
      ...Object.entries(started.nodes),
      ...workflow.nodes.filter((node) => !started.nodes[node.id]).map((node) => [node.id, freshNodeState()]),
    ]),
  };
  const nodeState = (nodeId: string) => run.nodes[nodeId]!;
  const setNode = (nodeId: string, state: NodeState) => {
    run = withNode(run, nodeId, state);
  };
  const patchNode = (nodeId: string, patch: Partial<NodeState>) => setNode(nodeId, { ...nodeState(nodeId), ...patch });
  const runPrompt = promptRunner(deps.prompt);
  const runners: Record<'bash' | 'prompt' | 'command', NodeRunner> = { bash: runBashNode, prompt: runPrompt, command: runPrompt };
  // Nodes stop when the run is stopped from outside, or when the executor itself fails: nothing
  // may keep running unsupervised under a run that has already ended.
  const internal = new AbortController();
  const signal = AbortSignal.any([outerSignal, internal.signal]);
  const artifactsDir = runs.artifactsDir(run.id);
  const variables = runVariables(run, artifactsDir, deps.port);
  const outputs = await restoreOutputs(run, artifactsDir);
  const commits = deps.worktree && nodeCommits(deps.worktree, run, { commit: workflow.commit });
  const running = new Map<string, Promise<void>>();
  let stop: RunStop | undefined;
  // Node progress reaches the record once per scheduling round at most (see `schedule`), not as
  // every node starts and ends: the record is rewritten whole, and two of those per node dominated
  // the cost of a chain. A refused write (another server took the run) stops it at once.
  const rounds = roundWrites({ runs, latest: () => run, fence: deps.fenceRounds ?? false, onFailure: () => internal.abort('round_write_failed') });
  const land = rounds.land;

  /**
   * One agent call's reported cost, counted at once (the run's record is saved with the round):
   * the report that reaches the cap stops every node still running, and no further node starts.
   */
  const spend = async (nodeId: string, costUsd: number | null | undefined) => {
    const spent = recordSpend(run, nodeId, costUsd);
    const { events, exceeded } = spent;
    run = spent.run;
    if (costUsd !== undefined) rounds.changed();
    for (const event of events) await runs.emit(run, event.type, event.fields as never);
    if (exceeded && !stop) {
      stop = { code: BUDGET_EXCEEDED, message: budgetStopMessage(run) };
      internal.abort(BUDGET_EXCEEDED);
    }
  };

  /**
   * A node's agent waits for an agent slot, or got one: the node is `waiting` meanwhile, then
   * `running` again (issue 29: it ran nothing while it waited), said on the node (saved now, so the
   * run's detail shows it while it lasts) and as a `node_waiting` event.
   */
  const slotWait = (nodeId: string, waiting: boolean) => {
    const state = nodeState(nodeId);
    if (waiting) setNode(nodeId, moveNode(state, 'queue', { waitingFor: 'agent_slot' }));
    else if (state.status === 'waiting') setNode(nodeId, without(moveNode(state, 'dequeue'), 'waitingFor'));
    const said = async () => {
      await runs.emit(run, 'node_waiting', { nodeId, waitingFor: waiting ? 'agent_slot' : null });
      await rounds.writeNow();
    };
    said().catch((error: unknown) => {
      deps.logger.error('run.event_write_failed', { runId: run.id, nodeId, error: (error as Error).message });
    });
  };

  /** Runs a node that `schedule` marked running (its round's record write follows); its outcome goes with a later round's write. */
  const runNode = async (node: WorkflowNode) => {
    // Not waited for: its seq is taken now, so it precedes any node_output, and appends land in order.
    land(runs.emit(run, 'node_started', { nodeId: node.id, kind: node.action.kind }));
    const log = openNodeLog(join(artifactsDir, `${node.id}.log`));
    let streamedBytes = 0;
    let streamCut = false;
    const processFile = runs.processFile(run.id, node.id);
    const onProcess = (pid: number) => {
      try {
        writeFileSync(processFile, JSON.stringify({ pid, startTime: processStartTime(pid) }));
      } catch {
        // Only crash clean-up depends on it; the node itself runs on.
      }
    };
    const onOutput = (stream: RunEventFields['node_output']['stream'], text: string) => {
      log.write(text);
      // Events carry the first 64 KiB, and the one that stops there says so — an empty one when
      // the cap fell exactly between two chunks — so no follower takes a cut stream for the whole.
      if (streamCut) return;
      const { text: part, truncated } = capUtf8(text, OUTPUT_CAP_BYTES - streamedBytes);
      streamedBytes += Buffer.byteLength(part);
      streamCut = truncated;
      runs.emit(run, 'node_output', { nodeId: node.id, stream, text: part, ...(truncated ? { truncated: true } : {}) }).catch((error: unknown) => {
        deps.logger.error('run.event_write_failed', { runId: run.id, nodeId: node.id, error: (error as Error).message });
      });
    };
    // An agent node counts from zero, so "no tool call" reads as 0 (a bash node has no count at all).
    if (node.action.kind !== 'bash') patchNode(node.id, emptyToolTally());
    // Counted on the node (saved with its outcome) and announced as it happens; like output, not awaited.
    const onTool = (call: AgentToolCall) => {
      const tally = { ...nodeState(node.id) };
      if (tally.toolsDenied) tally.toolsDenied = [...tally.toolsDenied];
      const announce = tallyToolCall(tally, call);
      setNode(node.id, tally);
      if (!announce) return;
      runs.emit(run, 'agent_tool', { nodeId: node.id, ...call }).catch((error: unknown) => {
        deps.logger.error('run.event_write_failed', { runId: run.id, nodeId: node.id, error: (error as Error).message });
      });
    };
    let outcome: NodeOutcome | undefined;
    let failure: NodeFailure | undefined;
    let cancelled = false;
    // What an earlier attempt recorded of its range no longer holds.
    if (commits) setNode(node.id, without(nodeState(node.id), ...NODE_RANGE_FIELDS));
    const base = commits ? await commits.start() : null;
    const startedMs = Date.now();
    // The node's cost: every attempt's that reported one (null while none did).
    let nodeCost: number | null = null;
    const addCost = (costUsd: number | null | undefined) => {
      if (typeof costUsd === 'number') nodeCost = (nodeCost ?? 0) + costUsd;
    };
    for (let attempt = 1; attempt <= node.retry.maxAttempts; attempt++) {
      // Stopped between its round's save and its start (the spend cap, a cancel): it never starts.
      if (signal.aborted) {
        cancelled = true;
        break;
      }
      patchNode(node.id, { attempts: attempt });
      try {
        outcome = await runners[node.action.kind as 'bash' | 'prompt' | 'command']({
          run,
          workflow,
          node,
          outputs,
          variables,
          env: deps.workspaceEnv,
          envAllow: [...deps.envAllow, ...(node.envAllow ?? [])],
          onEnvGiven: (names) => patchNode(node.id, { envGiven: names }),
          onSlotWait: (waiting) => slotWait(node.id, waiting),
          signal,
          onOutput,
          onTool,
          onProcess,
        });
        failure = undefined;
        addCost(outcome.costUsd);
        await spend(node.id, outcome.costUsd);
        break;
      } catch (error) {
        if (error instanceof NodeCancelled || signal.aborted) {
          cancelled = true;
          break;
        }
        failure = error instanceof NodeFailure ? error : new NodeFailure('internal_error', (error as Error).message);
        // A failed attempt's reported cost counts; one that reported none is not taken for unknown spend.
        addCost(failure.costUsd);
        await spend(node.id, failure.costUsd ?? undefined);
        // Another attempt before the limit resets would hit it again: the node fails with its `resumeAt`.
        if (failure.code === 'usage_limit') break;
        if (attempt < node.retry.maxAttempts) {
          onOutput('system', `attempt ${attempt} failed: ${failure.message}; retrying${node.retry.delayMs ? ` in ${node.retry.delayMs} ms` : ''}\n`);
          await abortableDelay(node.retry.delayMs, signal);
          if (signal.aborted) {
            cancelled = true;
            break;
          }
        }
      }
    }
    // Cancelled (or stopped by the cap) while it waited for a slot: it waits no more, and ends as a
    // running node does.
    if (nodeState(node.id).status === 'waiting') setNode(node.id, moveNode(nodeState(node.id), 'dequeue'));
    setNode(node.id, without(nodeState(node.id), 'waitingFor'));
    // What the node left in the worktree is committed before anything after it starts (a failed node's too).
    const range = commits && !cancelled ? await commits.finish(node.id, base) : undefined;
    if (range instanceof NodeFailure) {
      failure = failure ? new NodeFailure(failure.code, `${failure.message}; ${range.message}`) : range;
      outcome = undefined;
    } else if (range) {
      run = { ...run, headCommit: range.headCommit };
      patchNode(node.id, range.node);
    }
    await log.end();
    // Said on the record, whatever the node's end: its log stops at the limit (docs/decisions.md, "Node output").
    patchNode(node.id, { ...(log.truncated ? { logTruncated: true } : {}), finishedAt: now(), durationMs: Date.now() - startedMs });
    // Its leader has exited: the note goes while the outcome is written rather than before (one
    // file-system round trip less between two nodes of a chain). A note a crash leaves meanwhile
    // names a leader that is gone, and recovery checks its start time before it kills anything.
    land(unlink(processFile).catch(() => {}));
    if (cancelled) {
      setNode(node.id, moveNode(nodeState(node.id), 'stop', { error: 'cancelled', costUsd: nodeCost }));
    } else if (outcome) {
      // On disk before anything after it starts: a later node's script may read `$ARTIFACTS_DIR/<node>.out`.
      await writeOutputFile(join(artifactsDir, `${node.id}.out`), outcome.output);
      outputs[node.id] = outcome.output;
      const capped = capUtf8(outcome.output);
      const state = moveNode(nodeState(node.id), 'complete', {
        output: capped.text,
        outputTruncated: capped.truncated,
        costUsd: nodeCost,
        tokens: outcome.tokens ?? null,
        model: outcome.model ?? null,
      });
      setNode(node.id, state);
      // On disk before the record says `completed` (the next round's write waits for it), not
      // before the next node starts: nothing a node runs reads the event log.
      land(
        runs.emit(run, 'node_completed', {
          nodeId: node.id,
          durationMs: state.durationMs,
          costUsd: state.costUsd,
          output: capped.text,
          attempts: state.attempts,
        }),
      );
    } else {
      const error = failure?.message ?? 'failed';
      const resumeAt = failure?.resumeAt ?? undefined;
      // The code goes on the node as well as on its event: a reader of the record (the run detail,
      // a script polling it) tells a stall from a usage limit without parsing the sentence.
      const state = moveNode(nodeState(node.id), 'fail', {
        error,
        ...(failure ? { errorCode: failure.code } : {}),
        costUsd: nodeCost,
        ...(resumeAt ? { resumeAt } : {}),
      });
      setNode(node.id, state);
      land(
        runs.emit(run, 'node_failed', {
          nodeId: node.id,
          error,
          code: failure?.code,
          ...(resumeAt ? { resumeAt } : {}),
          attempts: state.attempts,
          durationMs: state.durationMs,
        }),
      );
    }
    rounds.changed();
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
        const state = run.nodes[node.id]!;
        const decision = state.status !== 'pending' || running.has(node.id) ? undefined : decideNode(node, run.nodes, outputs);
        // Not pending, or a dependency still open: looked at again when a dependency ends.
        if (!decision || decision.kind === 'wait') {
          candidates.delete(node);
          continue;
        }
        if (decision.kind === 'skip') {
          candidates.delete(node);
          setNode(node.id, moveNode(state, 'skip', { reason: decision.reason, finishedAt: now() }));
          await runs.emit(run, 'node_skipped', { nodeId: node.id, reason: decision.reason });
          rounds.changed();
          ended(node);
          changed = true;
        } else if (node.action.kind === 'approval') {
          candidates.delete(node);
          setNode(node.id, moveNode(state, 'wait', { startedAt: now() }));
          rounds.changed();
        } else if (node.action.kind === 'wait') {
          // It runs nothing: the run settles `waiting` once nothing else can run (waits.ts).
          candidates.delete(node);
          setNode(node.id, holdWait(state, node.action, new Date()));
          rounds.changed();
        } else if (running.size + starting.length < deps.parallelism) {
          candidates.delete(node);
          // An agent node's permissions go on its record: what the agent was allowed, as it ran.
          const begun = moveNode(state, 'start', { ...freshNodeState(), startedAt: now(), ...(node.permissions ? { permissions: node.permissions } : {}) });
          // A node run again (resume) starts a new log; what its last one said no longer holds.
          setNode(node.id, without(begun, 'logTruncated'));
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
        runNode(node).finally(() => {
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
    return { run, error: error as Error };
  }
  return { run, ...(stop ? { stop } : {}) };
}
