/**
 * The diff between two commits of a run's branch (docs/decisions.md, "A commit per node, and the diff"): read
 * from git's objects in the repository the worktree belongs to, never from the work tree, so it is
 * the same while a node is running and after the worktree's directory is gone (its branch kept).
 */

import * as z from 'zod';
import { DomainError } from '../shared/errors.js';
import { runGit, runGitCapped } from './git.js';
import type { Environment } from './records.js';
import type { WorktreeGit } from './worktrees.js';

/** The patch of `GET /api/workflows/runs/{runId}/diff` is cut past this many bytes (`truncated`). */
export const PATCH_CAP_BYTES = 1024 * 1024;

export const DiffFileSchema = z.object({
  path: z.string().describe('the path after the change (a deleted file: the path it had)'),
  oldPath: z.string().optional().describe('a renamed file: the path it had'),
  status: z.enum(['added', 'modified', 'deleted', 'renamed']),
  insertions: z.number().int().describe('lines added (0 for a binary file)'),
  deletions: z.number().int().describe('lines removed (0 for a binary file)'),
  binary: z.boolean().optional().describe('true for a binary file: git counts no lines in it'),
});
export type DiffFile = z.infer<typeof DiffFileSchema>;

export const RunDiffSchema = z.object({
  branch: z.string().describe("the run's branch, `svc/<runId>`"),
  base: z.string().nullable().describe("the commit the diff starts from (the run's or the node's base); null when the node never ran in the worktree"),
  head: z.string().nullable().describe('the commit it ends at'),
  files: z.array(DiffFileSchema),
  patch: z.string().describe('the unified diff (`git diff base head`), at most 1 MiB, cut at a line end'),
  truncated: z.boolean().describe('true when the patch was cut at 1 MiB; `files` is always complete'),
});
export type RunDiff = z.infer<typeof RunDiffSchema>;

/**
 * The same diff whatever the user's git configuration says: no colour, no external diff or
 * textconv program, renames found, the usual `a/` `b/` prefixes.
 */
const DIFF_OPTIONS = ['--no-color', '--no-ext-diff', '--no-textconv', '-M', '--src-prefix=a/', '--dst-prefix=b/'];

const STATUS: Record<string, DiffFile['status']> = { A: 'added', D: 'deleted', R: 'renamed' };

/** `--name-status -z`: `M\0path\0`, `R100\0old\0new\0`. */
function parseNameStatus(out: string): Array<{ status: DiffFile['status']; path: string; oldPath?: string }> {
  const fields = out.split('\0');
  const entries: Array<{ status: DiffFile['status']; path: string; oldPath?: string }> = [];
  for (let i = 0; i < fields.length && fields[i];) {
    const letter = fields[i]![0]!;
    if (letter === 'R' || letter === 'C') {
      const [oldPath, path] = [fields[i + 1]!, fields[i + 2]!];
      entries.push(letter === 'R' ? { status: 'renamed', path, oldPath } : { status: 'added', path });
      i += 3;
    } else {
      entries.push({ status: STATUS[letter] ?? 'modified', path: fields[i + 1]! });
      i += 2;
    }
  }
  return entries;
}

/** `--numstat -z`: `ins\tdel\tpath\0`, or for a rename `ins\tdel\t\0old\0new\0`; a binary file counts `-`. */
function parseNumstat(out: string): Map<string, { insertions: number; deletions: number; binary: boolean }> {
  const fields = out.split('\0');
  const counts = new Map<string, { insertions: number; deletions: number; binary: boolean }>();
  for (let i = 0; i < fields.length && fields[i];) {
    const [added = '', removed = '', path = ''] = fields[i]!.split('\t');
    let key = path;
    i += 1;
    if (path === '') {
      key = fields[i + 1] ?? '';
      i += 2;
    }
    const binary = added === '-' && removed === '-';
    counts.set(key, { insertions: binary ? 0 : Number(added), deletions: binary ? 0 : Number(removed), binary });
  }
  return counts;
}

/** Cuts a patch cut at `PATCH_CAP_BYTES` back to its last whole line. */
function wholeLines(patch: Buffer): Buffer {
  const end = patch.lastIndexOf(0x0a);
  return end < 0 ? patch : patch.subarray(0, end + 1);
}

/** Files, counts and the patch from `base` to `head`, read in `repository`; rejects with a GitError when a commit is not there. */
export async function readDiff(repository: string, base: string, head: string, git: WorktreeGit): Promise<Omit<RunDiff, 'branch' | 'base' | 'head'>> {
  const options = { ...git, cwd: repository };
  if (base === head) return { files: [], patch: '', truncated: false };
  const range = [base, head, '--'];
  const [names, numbers, patch] = await Promise.all([
    runGit(['diff', ...DIFF_OPTIONS, '--name-status', '-z', ...range], options),
    runGit(['diff', ...DIFF_OPTIONS, '--numstat', '-z', ...range], options),
    runGitCapped(['diff', ...DIFF_OPTIONS, ...range], options, PATCH_CAP_BYTES),
  ]);
  const counts = parseNumstat(numbers);
  const files = parseNameStatus(names).map((entry) => {
    const count = counts.get(entry.path) ?? { insertions: 0, deletions: 0, binary: false };
    return { ...entry, insertions: count.insertions, deletions: count.deletions, ...(count.binary ? { binary: true } : {}) };
  });
  const text = (patch.truncated ? wholeLines(patch.stdout) : patch.stdout).toString('utf8');
  return { files, patch: text, truncated: patch.truncated };
}

/** The commits a diff spans; null when a node never ran in the worktree (nothing to show). */
export interface DiffRange {
  base: string | null;
  head: string | null;
}

/** The diff of `range` on an environment's branch; 409 `worktree_gone` when its commits are no longer in the repository. */
export async function environmentDiff(environment: Environment, range: DiffRange, git: WorktreeGit): Promise<RunDiff> {
  const { branch, repository } = environment;
  const { base, head } = range;
  if (base === null || head === null) return { branch, base, head, files: [], patch: '', truncated: false };
  try {
    return { branch, base, head, ...(await readDiff(repository, base, head, git)) };
  } catch (error) {
    throw new DomainError('worktree_gone', `Run ${environment.run_id}'s commits are no longer in ${repository}: ${(error as Error).message}`);
  }
}
