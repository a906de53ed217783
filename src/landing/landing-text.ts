/**
 * The words svc writes when it lands a run (docs/decisions.md, "Landing a run: merge, push, pull request"): the merge
 * commit's message and the pull request's title and body, each unless the user gave their own.
 * Link-free: a pull request is read where svc's dashboard is not reachable.
 */

import type { RunRecord } from '../runs/index.js';

const SUBJECT_MAX = 72;

/** The run's message's first line, cut to a commit subject; the workflow and run when it has none. */
export function runSubject(run: Pick<RunRecord, 'id' | 'workflow' | 'message'>): string {
  const line =
    run.message
      .split('\n')
      .find((text) => text.trim() !== '')
      ?.trim() ?? '';
  if (!line) return `${run.workflow} (svc run ${run.id})`;
  return line.length > SUBJECT_MAX ? `${line.slice(0, SUBJECT_MAX - 1)}…` : line;
}

/** A merge commit names both branches and the task; a squash or fast-forward commit is the task. */
export function mergeMessage(run: Pick<RunRecord, 'id' | 'workflow' | 'message' | 'branch'>, into: string, strategy: string): string {
  if (strategy === 'merge') return `Merge ${run.branch ?? `svc/${run.id}`} into ${into}\n\n${runSubject(run)}`;
  return runSubject(run);
}

/** The output of the node that finished last, if it said anything. */
function lastOutput(run: Pick<RunRecord, 'nodes'>): string {
  const done = Object.values(run.nodes)
    .filter((node) => node.status === 'completed' && node.finishedAt && node.output?.trim())
    .sort((a, b) => Date.parse(a.finishedAt!) - Date.parse(b.finishedAt!));
  return done.at(-1)?.output?.trim() ?? '';
}

/** The last node's output, then what ran: the workflow, each node's state, the cost. */
export function pullRequestBody(run: Pick<RunRecord, 'id' | 'workflow' | 'nodes' | 'costUsd'>): string {
  const nodes = Object.entries(run.nodes).map(([id, node]) => `${id} ${node.status}`);
  const cost = run.costUsd === null ? 'no agent cost recorded' : `cost $${run.costUsd.toFixed(2)}`;
  const summary = `Made by svc run ${run.id}: workflow ${run.workflow}; nodes ${nodes.join(', ') || 'none'}; ${cost}.`;
  const output = lastOutput(run);
  return output ? `${output}\n\n---\n${summary}` : summary;
}
