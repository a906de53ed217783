import { CWD_OPTION, defineCommand } from '../define-command.js';
import { printJson, printTable } from '../output.js';
import { cwdOption, reportUnusableFiles } from './workflow/_shared.js';

/**
 * `svc commands [--cwd dir]`: the prompts a node can run with `command: <name>`. Piped: one
 * tab-separated line each (name, source, description, file). Command files that were refused (not
 * a regular file, too large) or unreadable go to stderr, as `svc workflow list` reports its files.
 */
export default defineCommand({
  options: { cwd: CWD_OPTION },
  run: async (cmd, _args, options) => {
    const answer = await cmd.client().commands.list(cwdOption(options.cwd));
    if (cmd.globals.json) return printJson(cmd.io, answer);
    if (cmd.io.isStdoutTTY)
      await printTable(
        cmd.io,
        ['NAME', 'SOURCE', 'DESCRIPTION'],
        answer.commands.map((c) => [c.name, c.source, c.description]),
      );
    else
      await printTable(
        cmd.io,
        [],
        answer.commands.map((c) => [c.name, c.source, c.description, c.filename]),
      );
    await reportUnusableFiles(cmd, answer.errors ?? [], 'command file');
  },
});
