import { canChange, RUN_OPERATIONS, type RunOperation } from '../runs/model/lifecycle.js';
import type { RunStatus } from '../runs/index.js';
import type { SvcClient } from './client.js';
import type { RunView, StartRunInput } from './types.js';

export type { RunOperation };

/**
 * What a person may do to a run in this state, from the engine's one lifecycle table: the
 * dashboard shows exactly these buttons, and the server answers 409 for anything else.
 */
export function allowedOperations(status: RunStatus): RunOperation[] {
  return RUN_OPERATIONS.filter((operation) => canChange(operation, status));
}

/**
 * Resume as `svc resume` does it (docs/decisions.md, "CLI"): mark the failed run, then start its
 * workflow again in the same conversation and directory, which continues that run and skips the
 * nodes it completed. The API's resume alone only marks the run for some later start, which a
 * person pressing "Resume" would wait for in vain. Answers the id of the run that continues.
 */
export async function resumeAndContinue(client: SvcClient, runId: string, input: { maxCostUsd?: number } = {}): Promise<string> {
  const run = await client.runs.resume(runId, input);
  const started = await client.runs.start(run.workflow, continuationOf(run));
  return started.runId;
}

/** The start that continues a run marked by resume: its message, directory and conversation. */
export function continuationOf(run: Pick<RunView, 'message' | 'cwd' | 'conversationId'>): StartRunInput {
  return { message: run.message, cwd: run.cwd, ...(run.conversationId ? { conversationId: run.conversationId } : {}) };
}
