import { defineCommand } from '../../define-command.js';
import { printJson } from '../../output.js';
import { printWorkspaces } from './_print.js';

/** `svc workspace list`: every registered workspace, oldest first. */
export default defineCommand({
  run: async (cmd) => {
    const result = await cmd.client().workspaces.list({ limit: 200 });
    if (cmd.globals.json) return printJson(cmd.io, result);
    if (result.workspaces.length === 0) {
      if (cmd.io.isStdoutTTY) cmd.io.err('No workspaces. Add one with `svc workspace add <url|path>`.\n');
      return;
    }
    await printWorkspaces(cmd, result.workspaces);
  },
});
