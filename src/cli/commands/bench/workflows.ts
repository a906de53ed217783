import { defineCommand } from '../../define-command.js';
import { printJson } from '../../output.js';

/** `svc bench workflows`: every workflow with at least one run, one a line. */
export default defineCommand({
  run: async (cmd) => {
    const result = await cmd.client().bench.workflows();
    if (cmd.globals.json) return printJson(cmd.io, result);
    for (const name of result.workflows) cmd.io.out(`${name}\n`);
    if (result.workflows.length === 0 && cmd.io.isStdoutTTY) cmd.io.err('No runs yet.\n');
  },
});
