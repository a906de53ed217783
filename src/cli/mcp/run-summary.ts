import type { RunDetail, RunEvent, RunView } from '../../client/index.js';

/** Lines of output a run view carries per node: enough to see where it is, little enough for a model's context. */
export const OUTPUT_TAIL_LINES = 20;
/** …and at most this many characters of them per node (an agent's line can be long). */
const OUTPUT_TAIL_CHARS = 4000;

export interface NodeSummary {
  id: string;
  status: string;
  durationMs: number | null;
  costUsd: number | null;
  attempts: number;
  error: string | null;
  permissions?: string;
  reason?: string;
}

/** What a model sees of a run (`get_run`, `wait_run`, the run operations): its state, its nodes, its cost, the tail of its output. */
export interface RunSummary {
  id: string;
  workflow: string;
  status: string;
  message: string;
  error: string | null;
  errorCode: string | null;
  costUsd: number | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  workspaceId: string | null;
  cwd: string;
  branch: string | null;
  permissions: string | null;
  /** Paused: the gate waiting for approve_run or reject_run. */
  gate?: { nodeId: string; message: string };
  nodes: NodeSummary[];
  /** The last lines each node printed (stdout, stderr, the agent's text), in the order the nodes started printing. */
  lastOutput: Array<{ node: string; text: string }>;
}

function toNodeSummaries(run: RunView): NodeSummary[] {
  return Object.entries(run.nodes).map(([id, node]) => ({
    id,
    status: node.status,
    durationMs: node.durationMs ?? null,
    costUsd: node.costUsd ?? null,
    attempts: node.attempts,
    error: node.error ?? null,
    ...(node.permissions ? { permissions: node.permissions } : {}),
    ...(node.reason ? { reason: node.reason } : {}),
  }));
}

/** The last `OUTPUT_TAIL_LINES` lines of each node's output events, cut to `OUTPUT_TAIL_CHARS`. */
export function outputTails(events: readonly RunEvent[]): Array<{ node: string; text: string }> {
  const byNode = new Map<string, string[]>();
  for (const event of events) {
    if (event.type !== 'node_output') continue;
    const chunks = byNode.get(event.nodeId) ?? [];
    chunks.push(event.text);
    byNode.set(event.nodeId, chunks);
  }
  return [...byNode].map(([node, chunks]) => {
    const lines = chunks.join('').replace(/\n+$/, '').split('\n');
    const tail = lines.slice(-OUTPUT_TAIL_LINES).join('\n');
    return { node, text: tail.length > OUTPUT_TAIL_CHARS ? `…${tail.slice(-OUTPUT_TAIL_CHARS)}` : tail };
  });
}

/** The gate a paused run waits at: its last `run_paused` event. */
function waitingGate(run: RunDetail): RunSummary['gate'] {
  if (run.status !== 'paused') return undefined;
  const paused = run.events.findLast((event) => event.type === 'run_paused');
  return paused?.type === 'run_paused' ? { nodeId: paused.nodeId, message: paused.message } : undefined;
}

export function toRunSummary(run: RunDetail): RunSummary {
  const gate = waitingGate(run);
  return {
    id: run.id,
    workflow: run.workflow,
    status: run.status,
    message: run.message,
    error: run.error,
    errorCode: run.errorCode ?? null,
    costUsd: run.costUsd,
    createdAt: run.createdAt,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    workspaceId: run.workspaceId,
    cwd: run.cwd,
    branch: run.branch ?? null,
    permissions: run.permissions ?? null,
    ...(gate ? { gate } : {}),
    nodes: toNodeSummaries(run),
    lastOutput: outputTails(run.events),
  };
}

/** One line of `list_runs`: enough to pick a run. */
export function toRunLine(run: RunView) {
  return { id: run.id, workflow: run.workflow, status: run.status, message: run.message, createdAt: run.createdAt, costUsd: run.costUsd, error: run.error };
}
