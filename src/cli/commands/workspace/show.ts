import { defineCommand } from '../../define-command.js';
import { printWorkspace, WORKSPACE_ARG } from './_print.js';

/** `svc workspace show <id>`. */
export default defineCommand({
  args: [WORKSPACE_ARG],
  run: async (cmd, [id]) => printWorkspace(cmd, await cmd.client().workspaces.get(id)),
});
