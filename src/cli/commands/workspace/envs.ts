import { defineCommand } from '../../define-command.js';
import { printJson } from '../../output.js';
import { printEnvironments, WORKSPACE_ARG } from './_print.js';

/** `svc workspace envs <id>`: its isolation environments, one git worktree per run. */
export default defineCommand({
  args: [WORKSPACE_ARG],
  run: async (cmd, [id]) => {
    const result = await cmd.client().workspaces.environments(id);
    if (cmd.globals.json) return printJson(cmd.io, result);
    if (result.environments.length === 0) {
      if (cmd.io.isStdoutTTY) cmd.io.err('No environments: no run has used this workspace yet.\n');
      return;
    }
    await printEnvironments(cmd, result.environments);
  },
});
