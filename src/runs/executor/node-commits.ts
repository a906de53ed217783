/**
 * A commit per node (docs/decisions.md, "A commit per node, and the diff"): in a run on a workspace, what a node
 * left in the run's worktree is committed on `svc/<runId>` as `<workflow>: <node id>` when the node
 * ends, so the next node and an approval gate start from a clean tree; the node records its range
 * (the HEAD it started from → the HEAD after its commit), which holds the commits its agent made
 * itself too. `commit: false` on the workflow leaves the worktree alone and only records ranges.
 */

import { NodeFailure } from './nodes/types.js';
import type { NodeChanges, NodeState, RunRecord } from '../model/types.js';

/** The git of a run's worktree, as the executor uses it (the composition root wires the workspaces' git in). */
export interface WorktreeCommits {
  /** The commit checked out in `cwd`. */
  head(cwd: string): Promise<string>;
  /** Commits everything uncommitted in `cwd` but `exclude`; resolves to HEAD afterwards and the commit made (null: nothing to commit). */
  commitAll(cwd: string, message: { subject: string; runId: string }, exclude?: readonly string[]): Promise<{ head: string; commit: string | null }>;
  /** Files changed, lines inserted and deleted from `from` to `to`. */
  changes(cwd: string, from: string, to: string): Promise<NodeChanges>;
}

/** What a node's end records: its range on the node, and the run's HEAD after it. */
export interface NodeRange {
  node: Pick<NodeState, 'baseCommit' | 'commit' | 'changes'>;
  headCommit: string;
}

/** The fields of a node's range, which a node that starts again clears (what an earlier attempt recorded). */
export const NODE_RANGE_FIELDS = ['baseCommit', 'commit', 'changes'] as const;

export interface NodeCommits {
  /** As a node starts: HEAD, the base of its range (null when git could not say). */
  start(): Promise<string | null>;
  /** As it ends: its changes committed, and its range; a failure (`commit_failed`) when git refused. */
  finish(nodeId: string, base: string | null): Promise<NodeRange | NodeFailure>;
}

const NO_CHANGES: NodeChanges = { files: 0, insertions: 0, deletions: 0 };

/**
 * `knownHead`: the worktree's HEAD as its setup left it a moment ago (a new worktree, set up in this
 * process), taken by the first node to start instead of asking git: one process fewer between a
 * run's request and its first node. Any later node asks git, since a running node's agent may
 * have committed.
 */
export function nodeCommits(git: WorktreeCommits, run: RunRecord, options: { commit: boolean; knownHead?: string | null }): NodeCommits {
  let knownHead = options.knownHead ?? null;
  // One git operation of this run at a time: parallel nodes share one worktree and its index. Which
  // node a change is attributed to, while several run at once, is best effort: a commit takes
  // everything in the tree, a sibling's unfinished work included.
  let tail: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const result = tail.then(work, work);
    tail = result.catch(() => undefined);
    return result;
  };
  return {
    start: () => {
      const head = knownHead;
      knownHead = null;
      return head ? Promise.resolve(head) : exclusive(() => git.head(run.cwd)).catch(() => null);
    },
    finish: (nodeId, base) =>
      exclusive(async (): Promise<NodeRange | NodeFailure> => {
        try {
          const { head, commit } = options.commit
            ? await git.commitAll(run.cwd, { subject: `${run.workflow}: ${nodeId}`, runId: run.id }, run.setup?.copied)
            : { head: await git.head(run.cwd), commit: null };
          const moved = base !== null && head !== base;
          const node = {
            baseCommit: base,
            commit: commit ?? (moved ? head : null),
            changes: moved ? await git.changes(run.cwd, base, head) : base === null ? null : { ...NO_CHANGES },
          };
          return { node, headCommit: head };
        } catch (error) {
          return new NodeFailure('commit_failed', `svc could not commit the node's changes on ${run.branch ?? 'the run branch'}: ${(error as Error).message}`);
        }
      }),
  };
}
