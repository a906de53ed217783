/**
 * What a rework run is told (docs/decisions.md, "Landing queue"): why its run could not land — the
 * conflict, with both sides' intent (this run's message and change to the conflicting files, and the
 * target's commits that changed them since the run branched, with the runs that landed them), or
 * the failing verification's output — and what to do: bring the target in and resolve it on top.
 * Read from git's objects; each diff is cut to a size an agent reads whole.
 */

import { runGit, type WorktreeGit } from '../workspaces/index.js';
import type { RunRecord } from '../runs/index.js';
import type { QueueEntry } from './records.js';

const DIFF_MAX = 12 * 1024;

const cut = (text: string) => (text.length > DIFF_MAX ? `${text.slice(0, DIFF_MAX)}\n… (cut at ${DIFF_MAX} characters)` : text);

export interface ReworkSide {
  repository: string;
  /** The run's branch, `svc/<runId>`. */
  branch: string;
  git: WorktreeGit;
}

async function read(args: string[], side: ReworkSide): Promise<string> {
  return runGit(args, { ...side.git, cwd: side.repository }).catch((error: unknown) => `(git could not tell: ${(error as Error).message})`);
}

/** The rework run's message: its `$ARGUMENTS`. */
export async function reworkMessage(
  entry: Pick<QueueEntry, 'target' | 'files' | 'outputTail' | 'reason'>,
  run: Pick<RunRecord, 'id' | 'message' | 'workflow'>,
  side: ReworkSide,
): Promise<string> {
  const { target, branch } = { target: entry.target, branch: side.branch };
  const base = (await read(['merge-base', `refs/heads/${target}`, `refs/heads/${branch}`], side)).trim();
  const lines = [
    `Run ${run.id} (workflow ${run.workflow}) could not land on ${target}: ${entry.reason ?? 'it needs rework'}`,
    '',
    'Its task was:',
    run.message.trim() || '(no message)',
    '',
  ];
  if (entry.files?.length) {
    const files = ['--', ...entry.files];
    lines.push(
      `It conflicts with ${target} in: ${entry.files.join(', ')}.`,
      '',
      `What this run changed there:`,
      cut(await read(['diff', base, `refs/heads/${branch}`, ...files], side)),
      '',
      `What ${target} changed there since this run branched (each landing names its run in a Svc-Run: line):`,
      cut(await read(['log', '--first-parent', '--format=%h %s%n%b', `${base}..refs/heads/${target}`, ...files], side)),
      cut(await read(['diff', base, `refs/heads/${target}`, ...files], side)),
      '',
    );
  } else if (entry.outputTail) {
    lines.push(`On top of ${target}, its verification (verify: in .svc/worktree.yaml) failed. The end of what it printed:`, entry.outputTail, '');
  }
  lines.push(
    `Bring ${target} into this branch (\`git merge ${target}\`), resolve what conflicts keeping both intents, make the verification pass on the result, and commit it.`,
    'The landing queue then tries this run again at the same place.',
  );
  return lines.join('\n');
}
