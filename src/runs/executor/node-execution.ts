import { writeFileSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { emptyToolTally, tallyToolCall, type AgentToolCall } from '../../agents/index.js';
import { type SandboxDenial } from '../../sandbox/index.js';
import { PendingGrant, processStartTime } from '../../processes/index.js';
import type { WorkflowNode } from '../../workflows/index.js';
import type { RunEventFields } from '../model/events.js';
import { moveNode } from '../model/lifecycle.js';
import { capUtf8, OUTPUT_CAP_BYTES } from '../model/node-state.js';
import { without } from '../model/run-snapshot.js';
import { openNodeLog, type NodeLog } from '../storage/node-log.js';
import { writeOutputFile } from '../storage/node-output-file.js';
import type { ExecutionScope } from './execution-scope.js';
import { NODE_RANGE_FIELDS } from './node-commits.js';
import { memoryEvents } from './memory-events.js';
import { watchNodeMemory, type NodeMemoryWatch } from './node-memory.js';
import { estimateNodeMemory } from './memory-estimate.js';
import { NodeCancelled, NodeFailure, type NodeOutcome, type NodeRunContext } from './nodes/types.js';
import { NO_RUN_TRACE, type NodeTrace } from '../../tracing/index.js';
import { nodeSpanEnd } from './trace-facts.js';

/**
 * One node of a run, from its start (which `schedule` made) to its outcome on the run's snapshot:
 * where its output and tool calls go as they happen, its attempts, the commit of what it changed,
 * and its end. Its outcome reaches the record with a later round's write (round-writes.ts).
 */
export async function executeNode(scope: ExecutionScope, node: WorkflowNode): Promise<void> {
  const { deps, state, rounds, commits } = scope;
  // Not waited for: its seq is taken now, so it precedes any node_output, and appends land in order.
  rounds.land(deps.runs.emit(state.run, 'node_started', { nodeId: node.id, kind: node.action.kind }));
  const log = openNodeLog(join(scope.artifactsDir, `${node.id}.log`));
  // Its span in the run's trace: from here to its outcome (docs/decisions.md, "Traces").
  const span = (deps.trace ?? NO_RUN_TRACE).node(node.id, node.action.kind as 'bash' | 'prompt' | 'command');
  const streams = nodeStreams(scope, node, log, span);
  // An agent node counts from zero, so "no tool call" reads as 0 (a bash node has no count at all).
  if (node.action.kind !== 'bash') state.patchNode(node.id, emptyToolTally());
  // A sandboxed one (an agent's, or a bash node's) counts its sandbox's refusals from zero too; an unsandboxed one has no count.
  state.setNode(node.id, state.node(node.id).sandbox === 'on' ? { ...state.node(node.id), sandboxDenied: 0 } : without(state.node(node.id), 'sandboxDenied'));
  // What an earlier attempt recorded of its range no longer holds.
  if (commits) state.setNode(node.id, without(state.node(node.id), ...NODE_RANGE_FIELDS));
  const base = commits ? await commits.start() : null;
  const startedMs = Date.now();
  const attempted = await attempts(scope, node, streams, span);
  const { cancelled, costUsd } = attempted;
  let { outcome, failure } = attempted;
  // Cancelled (or stopped by the cap) while it waited for a slot: it waits no more, and ends as a
  // running node does.
  if (state.node(node.id).status === 'waiting') state.setNode(node.id, moveNode(state.node(node.id), 'dequeue'));
  state.setNode(node.id, without(state.node(node.id), 'waitingFor'));
  // What the node left in the worktree is committed before anything after it starts (a failed node's too).
  const range = commits && !cancelled ? await commits.finish(node.id, base) : undefined;
  if (range instanceof NodeFailure) {
    failure = failure ? new NodeFailure(failure.code, `${failure.message}; ${range.message}`) : range;
    outcome = undefined;
  } else if (range) {
    state.run = { ...state.run, headCommit: range.headCommit };
    state.patchNode(node.id, range.node);
  }
  await log.end();
  // Said on the record, whatever the node's end: its log stops at the limit (docs/decisions.md, "Node output").
  state.patchNode(node.id, { ...(log.truncated ? { logTruncated: true } : {}), finishedAt: now(), durationMs: Date.now() - startedMs });
  // Its leader has exited: the note goes while the outcome is written rather than before (one
  // file-system round trip less between two nodes of a chain). A note a crash leaves meanwhile
  // names a leader that is gone, and recovery checks its start time before it kills anything.
  rounds.land(unlink(streams.processFile).catch(() => {}));
  if (cancelled) state.setNode(node.id, moveNode(state.node(node.id), 'stop', { error: 'cancelled', costUsd }));
  else if (outcome) await completed(scope, node, outcome, costUsd);
  else await failed(scope, node, failure, costUsd, log.tail());
  span.end(nodeSpanEnd(state.node(node.id), outcome));
  rounds.changed();
}

const now = () => new Date().toISOString();

interface NodeStreams extends Pick<NodeRunContext, 'onTool' | 'onSandboxDenied' | 'onSandboxWarning'> {
  /** Notes the leader's pid for crash recovery. */
  onProcess(pid: number): void;
  /** Each memory sample of its processes: a `node_memory` event now and then, for the live figure. */
  onMemory(rssBytes: number): void;
  /** Also svc's own lines about the node (`system`: a retry). */
  onOutput(stream: RunEventFields['node_output']['stream'], text: string): void;
  processFile: string;
}

/** Where a node's process, output and tool calls go as they happen: its log, its events, its tally, its process file. */
function nodeStreams({ deps, state }: ExecutionScope, node: WorkflowNode, log: NodeLog, span: NodeTrace): NodeStreams {
  const { runs, logger } = deps;
  const runId = state.run.id;
  const failedWrite = (error: unknown) => logger.error('run.event_write_failed', { runId, nodeId: node.id, error: (error as Error).message });
  let streamedBytes = 0;
  let streamCut = false;
  const processFile = runs.processFile(runId, node.id);
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
    runs.emit(state.run, 'node_output', { nodeId: node.id, stream, text: part, ...(truncated ? { truncated: true } : {}) }).catch(failedWrite);
  };
  // Counted on the node (saved with its outcome) and announced as it happens; like output, not awaited.
  const onTool = (call: AgentToolCall) => {
    const tally = { ...state.node(node.id) };
    if (tally.toolsDenied) tally.toolsDenied = [...tally.toolsDenied];
    const announce = tallyToolCall(tally, call);
    state.setNode(node.id, tally);
    if (!announce) return;
    runs.emit(state.run, 'agent_tool', { nodeId: node.id, ...call }).catch(failedWrite);
    // A span like the event, within the same bound: its tool and status, never its summary.
    span.tool({ tool: call.tool, status: call.status });
  };
  // Each refusal of the agent's sandbox: an event, and one more on the node's count.
  const onSandboxDenied = (denial: SandboxDenial) => {
    state.patchNode(node.id, { sandboxDenied: (state.node(node.id).sandboxDenied ?? 0) + 1 });
    runs.emit(state.run, 'sandbox_denied', { nodeId: node.id, ...denial }).catch(failedWrite);
  };
  const onSandboxWarning = (warning: string) => state.patchNode(node.id, { sandboxWarning: warning });
  // One throttle for all its attempts; not awaited, like output.
  const onMemory = memoryEvents(
    (fields) => void runs.emit(state.run, 'node_memory', { nodeId: node.id, ...fields }).catch(failedWrite),
    state.node(node.id).peakRssBytes ?? 0,
  );
  return { onProcess, onMemory, onOutput, onTool, onSandboxDenied, onSandboxWarning, processFile };
}

interface Attempted {
  outcome: NodeOutcome | undefined;
  failure: NodeFailure | undefined;
  cancelled: boolean;
  /** The node's cost: every attempt's that reported one (null while none did). */
  costUsd: number | null;
}

/** The node's attempts, up to its `retry`: the first that succeeds, or the last failure, or a cancel. */
async function attempts(scope: ExecutionScope, node: WorkflowNode, streams: NodeStreams, span: NodeTrace): Promise<Attempted> {
  const { deps, state, signal } = scope;
  const result: Attempted = { outcome: undefined, failure: undefined, cancelled: false, costUsd: null };
  const addCost = (costUsd: number | null | undefined) => {
    if (typeof costUsd === 'number') result.costUsd = (result.costUsd ?? 0) + costUsd;
  };
  for (let attempt = 1; attempt <= node.retry.maxAttempts; attempt++) {
    // Stopped between its round's save and its start (the spend cap, a cancel): it never starts.
    if (signal.aborted) {
      result.cancelled = true;
      break;
    }
    state.patchNode(node.id, { attempts: attempt });
    // Its place in the server's memory budget, taken just before its process starts (an agent's once
    // it holds an agent slot) and held only while the attempt runs.
    const estimate = await estimateNodeMemory({ history: deps.runs.summaries, logger: deps.logger }, state.run, node);
    const grant = new PendingGrant(deps.memory, estimate.bytes, signal, (waiting) => {
      scope.slotWait(node.id, waiting && 'memory');
      span.event({ name: waiting ? 'wait' : 'wait_end', waitingFor: 'memory' });
      // Why it waits: what it was estimated at, and from what (memory-estimate.ts).
      if (waiting)
        deps.logger.info('run.node_waiting_for_memory', { runId: state.run.id, nodeId: node.id, estimateBytes: estimate.bytes, source: estimate.source });
    });
    const memory = watchNodeMemory({
      nodeId: node.id,
      limitBytes: node.maxMemoryBytes,
      run: scope.memory,
      logger: deps.logger,
      intervalMs: deps.memory?.sampleMs,
      onSample: (bytes) => {
        grant.measured(bytes);
        streams.onMemory(bytes);
      },
    });
    try {
      if (node.action.kind === 'bash') await admit(grant);
      result.outcome = await scope.runners[node.action.kind as 'bash' | 'prompt' | 'command']({
        run: state.run,
        workflow: scope.workflow,
        node,
        outputs: scope.outputs,
        variables: scope.variables,
        artifactsDir: scope.artifactsDir,
        env: deps.workspaceEnv,
        envAllow: [...deps.envAllow, ...(node.envAllow ?? [])],
        onEnvGiven: (names) => state.patchNode(node.id, { envGiven: names }),
        onSlotWait: (waiting) => {
          scope.slotWait(node.id, waiting && 'agent_slot');
          span.event({ name: waiting ? 'wait' : 'wait_end', waitingFor: 'agent_slot' });
        },
        admitMemory: grant.admit,
        traceparent: span.traceparent,
        signal,
        onOutput: streams.onOutput,
        onTool: streams.onTool,
        onSandboxDenied: streams.onSandboxDenied,
        onSandboxWarning: streams.onSandboxWarning,
        onProcess: (pid, stop) => {
          streams.onProcess(pid);
          memory.onProcess(pid, stop);
        },
      });
      // Stopped for its memory: failed, whatever its process exited with once stopped (a trap may exit 0).
      const { exceeded } = endMemory(scope, node, memory);
      grant.release();
      if (exceeded) throw exceeded;
      result.failure = undefined;
      addCost(result.outcome.costUsd);
      await scope.spend(node.id, result.outcome.costUsd);
      break;
    } catch (error) {
      const { exceeded } = endMemory(scope, node, memory);
      grant.release();
      if (error instanceof NodeCancelled || signal.aborted) {
        // What the stopped agent had used was spent all the same.
        if (error instanceof NodeCancelled && error.costUsd !== null) {
          addCost(error.costUsd);
          await scope.spend(node.id, error.costUsd);
        }
        result.cancelled = true;
        break;
      }
      // Whatever its stopped process made of it (`exit_code`, an agent's failure), the reason is its memory.
      const failure = exceeded ?? (error instanceof NodeFailure ? error : new NodeFailure('internal_error', (error as Error).message));
      result.failure = failure;
      // A failed attempt's reported cost counts; one that reported none is not taken for unknown spend.
      addCost(failure.costUsd);
      await scope.spend(node.id, failure.costUsd ?? undefined);
      // Another attempt before the limit resets would hit it again: the node fails with its `resumeAt`.
      if (failure.code === 'usage_limit') break;
      if (attempt < node.retry.maxAttempts) {
        span.event({ name: 'retry', attempt, errorCode: failure.code });
        streams.onOutput('system', `attempt ${attempt} failed: ${failure.message}; retrying${node.retry.delayMs ? ` in ${node.retry.delayMs} ms` : ''}\n`);
        await abortableDelay(node.retry.delayMs, signal);
        if (signal.aborted) {
          result.cancelled = true;
          break;
        }
      }
    }
  }
  return result;
}

/** A bash node's admission, before its runner: stopped while it waited, it ends as a cancelled attempt. */
async function admit(grant: PendingGrant): Promise<void> {
  try {
    await grant.admit();
  } catch {
    throw new NodeCancelled();
  }
}

/**
 * Ends an attempt's memory watch (once: later calls change nothing) and puts what it used on the
 * node: the peak of every attempt, and the CPU time of all of them.
 */
function endMemory({ state }: ExecutionScope, node: WorkflowNode, memory: NodeMemoryWatch): { exceeded: NodeFailure | undefined } {
  const { usage, exceeded } = memory.end();
  if (usage) {
    const before = state.node(node.id);
    state.patchNode(node.id, {
      peakRssBytes: Math.max(before.peakRssBytes ?? 0, usage.peakRssBytes),
      cpuSeconds: Math.round(((before.cpuSeconds ?? 0) + usage.cpuSeconds) * 100) / 100,
      ...(node.maxMemoryBytes !== undefined ? { maxMemoryBytes: node.maxMemoryBytes } : {}),
    });
  }
  return { exceeded };
}

async function completed(
  { deps, state, rounds, outputs, artifactsDir }: ExecutionScope,
  node: WorkflowNode,
  outcome: NodeOutcome,
  costUsd: number | null,
): Promise<void> {
  // On disk before anything after it starts: a later node's script may read `$ARTIFACTS_DIR/<node>.out`.
  await writeOutputFile(join(artifactsDir, `${node.id}.out`), outcome.output);
  outputs[node.id] = outcome.output;
  const capped = capUtf8(outcome.output);
  const done = moveNode(state.node(node.id), 'complete', {
    output: capped.text,
    outputTruncated: capped.truncated,
    costUsd,
    tokens: outcome.tokens ?? null,
    model: outcome.model ?? null,
  });
  state.setNode(node.id, done);
  // On disk before the record says `completed` (the next round's write waits for it), not
  // before the next node starts: nothing a node runs reads the event log.
  rounds.land(
    deps.runs.emit(state.run, 'node_completed', {
      nodeId: node.id,
      durationMs: done.durationMs,
      costUsd: done.costUsd,
      output: capped.text,
      attempts: done.attempts,
    }),
  );
}

async function failed(
  { deps, state, rounds, outputs, artifactsDir }: ExecutionScope,
  node: WorkflowNode,
  failure: NodeFailure | undefined,
  costUsd: number | null,
  logTail: string,
): Promise<void> {
  const error = failure?.message ?? 'failed';
  const resumeAt = failure?.resumeAt ?? undefined;
  // `continue_on_error` (docs/decisions.md, "Tolerated failures"): dependents run as after a
  // success, so what the node printed on stdout is its output, on disk before any of them starts.
  const tolerated = node.continueOnError === true;
  const output = tolerated ? (failure?.output ?? '') : undefined;
  if (output !== undefined) {
    await writeOutputFile(join(artifactsDir, `${node.id}.out`), output);
    outputs[node.id] = output;
  }
  const capped = output === undefined ? undefined : capUtf8(output);
  // The code goes on the node as well as on its event: a reader of the record (the run detail,
  // a script polling it) tells a stall from a usage limit without parsing the sentence. The last
  // lines it printed go with them: why it failed, readable without its log.
  const ended = moveNode(state.node(node.id), 'fail', {
    error,
    ...(failure ? { errorCode: failure.code } : {}),
    costUsd,
    ...(resumeAt ? { resumeAt } : {}),
    ...(logTail ? { logTail } : {}),
    ...(tolerated ? { tolerated: true } : {}),
    ...(capped ? { output: capped.text, outputTruncated: capped.truncated } : {}),
  });
  state.setNode(node.id, ended);
  rounds.land(
    deps.runs.emit(state.run, 'node_failed', {
      nodeId: node.id,
      error,
      code: failure?.code,
      ...(resumeAt ? { resumeAt } : {}),
      attempts: ended.attempts,
      durationMs: ended.durationMs,
      ...(logTail ? { logTail } : {}),
      ...(tolerated ? { tolerated: true as const } : {}),
    }),
  );
}

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
