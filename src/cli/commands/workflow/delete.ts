import { CWD_OPTION, defineCommand } from '../../define-command.js';
import { printJson } from '../../output.js';
import { cwdOption } from './_shared.js';

/** `svc workflow delete <name> [--cwd dir]`: removes a project workflow file; bundled ones are read-only. */
export default defineCommand({
  args: [['<workflow>', 'workflow name']],
  options: { cwd: CWD_OPTION },
  run: async (cmd, [name], options) => {
    const result = await cmd.client().workflows.delete(name, cwdOption(options.cwd));
    if (cmd.globals.json) return printJson(cmd.io, result);
    for (const file of result.deleted) cmd.io.out(`Deleted ${file}\n`);
  },
});
