import type { StartRunRequest } from '../model/start-request.js';
import { hashDefinition } from '../model/definition-hash.js';
import { moveNode } from '../model/lifecycle.js';
import { freshNodeState } from '../model/node-state.js';
import { startingCap } from '../executor/spend-cap.js';
import type { NodeState, RunRecord } from '../model/types.js';
import type { ResolvedWorkflow } from '../model/workflow-resolver.js';

/** What `start` settled before the record is written: its id, conversations, workspace and cwd. */
export interface NewRunPlace {
  id: string;
  conversationId: string | null;
  platformId: string;
  workspaceId: string | null;
  cwd: string;
  /** In a worktree made at start: its branch and the commit it starts from. */
  branch?: string | undefined;
  baseCommit?: string | undefined;
  /** A follow-on run: the run it branched from. */
  fromRunId?: string | undefined;
}

/** The record of a run about to be created, every node fresh. */
export function newRunRecord(request: StartRunRequest, resolved: ResolvedWorkflow, place: NewRunPlace): RunRecord {
  const at = new Date().toISOString();
  const hash = hashDefinition(resolved.definition);
  return {
    id: place.id,
    workflow: request.workflow,
    // `create` makes it `pending`.
    status: 'pending',
    message: request.message,
    // Without a conversation of its own, a run belongs to its worker conversation: starting the
    // workflow again with that id is how such a run is resumed.
    conversationId: place.conversationId ?? place.platformId,
    platformId: place.platformId,
    workspaceId: place.workspaceId,
    cwd: place.cwd,
    branch: place.branch ?? null,
    baseCommit: place.baseCommit ?? null,
    headCommit: place.baseCommit ?? null,
    fromRunId: place.fromRunId ?? null,
    trigger: request.trigger,
    ...(request.outside ? { outside: request.outside } : {}),
    ...(request.traceparent ? { traceparent: request.traceparent } : {}),
    createdAt: at,
    startedAt: null,
    finishedAt: null,
    updatedAt: at,
    error: null,
    costUsd: null,
    maxCostUsd: startingCap(resolved.workflow.maxCostUsd, request.maxCostUsd),
    spentUsd: 0,
    permissions: request.permissions ?? null,
    nodes: Object.fromEntries(resolved.workflow.nodes.map((node) => [node.id, freshNodeState()])),
    resumePending: false,
    variables: request.variables ?? {},
    // Frozen: an approval continues with this definition even when the file changes meanwhile.
    definition: resolved.definition,
    definitionHash: hash,
    definitionHashes: [hash],
  };
}

/** What a resume changes of the run's version: the current definition, its hash added to those the run ran under. */
export function resumedVersion(run: RunRecord, resolved: ResolvedWorkflow): Pick<RunRecord, 'definition' | 'definitionHash' | 'definitionHashes'> {
  const hash = hashDefinition(resolved.definition);
  const earlier = run.definitionHashes ?? (run.definitionHash ? [run.definitionHash] : []);
  return { definition: resolved.definition, definitionHash: hash, definitionHashes: earlier.at(-1) === hash ? earlier : [...earlier, hash] };
}

/**
 * A resumed run's nodes: those of the definition as it is now (a node removed to fix the workflow
 * is gone); completed ones keep their outputs, everything else runs again.
 */
export function resumedNodes(run: RunRecord, resolved: ResolvedWorkflow): Record<string, NodeState> {
  return Object.fromEntries(
    resolved.workflow.nodes.map((node) => {
      const state = run.nodes[node.id];
      if (!state) return [node.id, freshNodeState()];
      return [
        node.id,
        state.status === 'completed'
          ? state
          : moveNode(state, 'reset', { ...freshNodeState(), errorCode: undefined, resumeAt: undefined, logTail: undefined, tolerated: undefined }),
      ];
    }),
  );
}
