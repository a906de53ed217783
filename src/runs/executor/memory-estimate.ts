import type { Logger } from '../../shared/logger.js';
import { percentile } from '../../shared/percentile.js';
import type { WorkflowNode } from '../../workflows/index.js';
import type { RunRecord } from '../model/types.js';
import type { RunSummaryIndex } from '../storage/run-summaries.js';
import { DEFAULT_NODE_ESTIMATE_BYTES } from '../../processes/index.js';

/**
 * What a node is admitted at against the server's memory budget (memory-admission.ts), and where
 * that figure came from (docs/decisions.md, "Memory admission"): the workflow's own `memory:`
 * request, else the p95 of the node's measured peaks in earlier runs, else a default by kind.
 */

/** Where an estimate came from: `memory:`, the node's measured history, or the default of its kind. */
export type MemoryEstimateSource = 'request' | 'history' | 'default';

export interface MemoryEstimate {
  bytes: number;
  source: MemoryEstimateSource;
}

/** How many of the workflow's newest ended runs (on the node's workspace) the history looks in. */
export const MEMORY_HISTORY_RUNS = 50;

/** Fewer measured peaks than this and the history says too little: one or two runs may have done little. */
export const MEMORY_HISTORY_MIN_PEAKS = 3;

/** The percentile of the peaks taken (nearest rank): the rare outlier above it does not hold every later run back. */
export const MEMORY_HISTORY_PERCENTILE = 95;

/** Longer than this and the node is admitted at its default instead: a slow history read must not hold a node back. */
export const MEMORY_HISTORY_TIMEOUT_MS = 1000;

/** What the estimate reads: the run summaries' history (run-summaries.ts) and the log for a history it could not read. */
export interface MemoryEstimateSources {
  history: Pick<RunSummaryIndex, 'nodePeakHistory'>;
  logger: Logger;
}

/** The node's estimate in this run: its request, else its history's p95, else its kind's default. Never throws. */
export async function estimateNodeMemory(
  { history, logger }: MemoryEstimateSources,
  run: Pick<RunRecord, 'id' | 'workflow' | 'workspaceId'>,
  node: WorkflowNode,
): Promise<MemoryEstimate> {
  if (node.memoryBytes !== undefined) return { bytes: node.memoryBytes, source: 'request' };
  const peaks = await readHistory(history, logger, run, node.id);
  if (peaks.length >= MEMORY_HISTORY_MIN_PEAKS) {
    return {
      bytes: percentile(
        [...peaks].sort((a, b) => a - b),
        MEMORY_HISTORY_PERCENTILE,
      ),
      source: 'history',
    };
  }
  const kind = node.action.kind === 'bash' ? 'bash' : 'agent';
  return { bytes: DEFAULT_NODE_ESTIMATE_BYTES[kind], source: 'default' };
}

/** The node's peaks, or none when the read fails or is slower than MEMORY_HISTORY_TIMEOUT_MS (said in the log). */
async function readHistory(
  history: MemoryEstimateSources['history'],
  logger: Logger,
  run: Pick<RunRecord, 'id' | 'workflow' | 'workspaceId'>,
  nodeId: string,
): Promise<number[]> {
  let timer: NodeJS.Timeout | undefined;
  // Unref'd: a pending read must never hold a finished CLI process open.
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), MEMORY_HISTORY_TIMEOUT_MS).unref()));
  try {
    // A rejection after the race is lost is handled by the race itself: nothing goes unhandled.
    const peaks = await Promise.race([
      history.nodePeakHistory({ workflow: run.workflow, workspaceId: run.workspaceId, nodeId, runs: MEMORY_HISTORY_RUNS }),
      late,
    ]);
    if (peaks !== 'late') return peaks;
    logger.warn('run.memory_history_slow', { runId: run.id, nodeId, timeoutMs: MEMORY_HISTORY_TIMEOUT_MS });
  } catch (error) {
    logger.warn('run.memory_history_failed', { runId: run.id, nodeId, error: (error as Error).message });
  } finally {
    clearTimeout(timer);
  }
  return [];
}
