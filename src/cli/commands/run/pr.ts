import { defineCommand, RUN_ARG } from '../../define-command.js';
import { printJson } from '../../output.js';
import { readStdin } from '../../io.js';

/**
 * `svc runs pr <run> [--title t] [--body b|-] [--draft]`: pushes the run's branch and opens a pull
 * request for it with the GitHub CLI; prints its URL. `--body -` reads the body from stdin.
 */
export default defineCommand({
  args: [RUN_ARG],
  options: {
    title: ['--title <text>', "default: the run's message's first line"],
    body: ['--body <text>', "the description ('-': stdin); default: the last node's output and a summary of the run"],
    base: ['--base <branch>', "the branch to merge into (default: the workspace's default branch)"],
    draft: ['--draft', 'open it as a draft'],
  },
  run: async (cmd, [id], options) => {
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
