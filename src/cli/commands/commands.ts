import type { CommandEntry } from '../../catalog/commands.js';
import type { CommandRun } from '../program.js';
import { printJson, printTable } from '../output.js';
import { cwdOption, viaCatalog, withCwd } from './workflow/_shared.js';

/**
 * `svc commands [--cwd dir]`: the prompts a node can run with `command: <name>`. Piped: one
 * tab-separated line each (name, source, description, file).
 */
const commands: CommandRun = async (cmd, _args, options) => {
  const cwd = cwdOption(options);
  const answer = await viaCatalog<{ commands: CommandEntry[] }>(cmd, {
    online: (client) => client.request('GET', withCwd('/api/commands', cwd)),
    offline: async (ctx) => ({ commands: await ctx.workflows.commands(cwd) }),
  });
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
};

export default commands;
