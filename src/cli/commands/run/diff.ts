import type { DiffFile, RunDiff } from '../../../client/types.js';
import { patchLines } from '../../../client/views.js';
import { defineCommand, RUN_ARG } from '../../define-command.js';
import type { IO } from '../../io.js';
import { printJson, printTable, styler, type Styler } from '../../output.js';

/** A unified diff coloured as `git diff` colours it on a terminal. */
export function colourPatch(patch: string, paint: Styler): string {
  const colour = { header: paint.bold, hunk: paint.cyan, added: paint.green, removed: paint.red, context: String };
  return patchLines(patch)
    .map(({ kind, text }) => `${colour[kind](text)}\n`)
    .join('');
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** `3 files changed, 10 insertions(+), 2 deletions(-)`, as git says it. */
export function summaryLine(files: DiffFile[]): string {
  const insertions = files.reduce((sum, file) => sum + file.insertions, 0);
  const deletions = files.reduce((sum, file) => sum + file.deletions, 0);
  return `${plural(files.length, 'file', 'files')} changed, ${plural(insertions, 'insertion(+)', 'insertions(+)')}, ${plural(deletions, 'deletion(-)', 'deletions(-)')}`;
}

const short = (sha: string | null) => (sha ? sha.slice(0, 10) : '-');

/** `--stat`: one row per file; on a terminal a table with coloured counts and a summary, piped tab-separated lines. */
async function printStat(io: IO, diff: RunDiff, paint: Styler): Promise<void> {
  const count = (file: DiffFile, n: number, colour: (text: string) => string) => (file.binary ? '-' : n === 0 ? '0' : colour(String(n)));
  // Piped lines always have the FROM column (scripts cut by position); a table only when a file was renamed.
  const from = !io.isStdoutTTY || diff.files.some((file) => file.oldPath !== undefined);
  await printTable(
    io,
    ['FILE', 'STATUS', 'ADDED', 'REMOVED', ...(from ? ['FROM'] : [])],
    diff.files.map((file) => [
      file.path,
      file.status,
      count(file, file.insertions, paint.green),
      count(file, file.deletions, paint.red),
      ...(from ? [file.oldPath ?? ''] : []),
    ]),
  );
  if (io.isStdoutTTY) io.out(`${summaryLine(diff.files)}\n`);
}

/**
 * `svc runs diff <run> [--node id] [--stat]`: what a run changed on its branch `svc/<runId>`, or one
 * node's commits. The patch is coloured on a terminal and exactly git's when piped, so
 * `svc runs diff <run> | git apply` works; `--json` prints the API's document.
 */
export default defineCommand({
  args: [RUN_ARG],
  options: {
    node: ['--node <id>', "only this node's commits"],
    stat: ['--stat', 'the files changed with lines added and removed, instead of the patch'],
  },
  run: async (cmd, [id], options) => {
    const diff = await cmd.client().runs.diff(id, options.node ? { node: options.node } : {});
    if (cmd.globals.json) return printJson(cmd.io, diff);
    const { io } = cmd;
    const paint = await styler(io);
    if (diff.files.length === 0) {
      if (io.isStdoutTTY) io.err(`No changes on ${diff.branch}${options.node ? ` in node ${options.node}` : ''}.\n`);
      return;
    }
    if (options.stat) await printStat(io, diff, paint);
    else {
      if (io.isStdoutTTY) io.out(`${paint.dim(`${diff.branch}  ${short(diff.base)}..${short(diff.head)}  ${summaryLine(diff.files)}`)}\n\n`);
      io.out(io.color ? colourPatch(diff.patch, paint) : diff.patch);
    }
    if (diff.truncated && !options.stat) {
      io.err(`The patch is cut at 1 MiB; \`git diff ${short(diff.base)} ${short(diff.head)}\` in the run's worktree shows all of it.\n`);
    }
  },
});
