import { printableLine } from '../../../shared/printable.js';
import type { CommandContext } from '../../context.js';
import { defineCommand, RUN_ARG } from '../../define-command.js';
import { UsageError } from '../../exit-codes.js';
import { printJson } from '../../output.js';
import { readStdin } from '../../io.js';

/**
 * `svc runs pr <run> [--title t] [--body b|-] [--draft]`: pushes the run's branch and opens a pull
 * request for it with the GitHub CLI; prints its URL. `--body -` reads the body from stdin.
 * `svc runs pr <run> --resume [--max-fix-cycles N]`: a person's go-on to the run's followed pull
 * request that needs one (docs/decisions.md, "Resuming a pull request that needs a person"):
 * reactions start again by themselves, counted afresh up to N (1–20; default its bound).
 */
export default defineCommand({
  args: [RUN_ARG],
  options: {
    title: ['--title <text>', "default: the run's message's first line"],
    body: ['--body <text>', "the description ('-': stdin); default: the last node's output and a summary of the run"],
    base: ['--base <branch>', "the branch to merge into (default: the workspace's default branch)"],
    draft: ['--draft', 'open it as a draft'],
    resume: ['--resume', 'the followed pull request needs a person, and you say go on: svc reacts to it again by itself'],
    maxFixCycles: ['--max-fix-cycles <n>', 'with --resume: the most reactions from now on (1-20; default: the bound it had)'],
  },
  run: async (cmd, [id], options) => {
    if (options.resume) return resumePullRequest(cmd, id, options);
    if (options.maxFixCycles !== undefined) throw new UsageError('--max-fix-cycles goes with --resume.');
    const body = options.body === '-' ? (await readStdin(cmd.io)).toString('utf8') : options.body;
    const answer = await cmd.client().runs.pr(id, {
      ...(options.title ? { title: options.title } : {}),
      ...(body !== undefined ? { body } : {}),
      ...(options.base ? { base: options.base } : {}),
      ...(options.draft ? { draft: true } : {}),
    });
    if (cmd.globals.json) return printJson(cmd.io, answer);
    cmd.io.out(`${answer.url}\n`);
  },
});

async function resumePullRequest(
  cmd: CommandContext,
  id: string,
  options: { title?: string | undefined; body?: string | undefined; base?: string | undefined; draft?: boolean | undefined; maxFixCycles?: string | undefined },
): Promise<void> {
  if (options.title !== undefined || options.body !== undefined || options.base !== undefined || options.draft) {
    throw new UsageError('--resume opens nothing: leave out --title, --body, --base and --draft.');
  }
  const raw = options.maxFixCycles;
  const cycles = raw === undefined ? undefined : /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (cycles !== undefined && !(cycles >= 1 && cycles <= 20)) throw new UsageError(`--max-fix-cycles needs a whole number from 1 to 20, got '${raw}'.`);
  const pr = await cmd.client().runs.resumePr(id, cycles === undefined ? {} : { maxFixCycles: cycles });
  if (cmd.globals.json) return printJson(cmd.io, pr);
  cmd.io.out(`Resumed pull request #${pr.number} (${printableLine(pr.url)}): svc reacts to it again by itself, at most ${pr.maxFixCycles} more times.\n`);
}
