import { defineCommand } from '../../define-command.js';
import { printJson } from '../../output.js';
import { WORKSPACE_ARG } from './_print.js';

/** `svc workspace env unset <id> KEY`. */
export default defineCommand({
  args: [WORKSPACE_ARG, ['<key>', 'the env var to remove']],
  run: async (cmd, [id, key]) => {
    const workspace = await cmd.client().workspaces.unsetEnv(id, key);
    if (cmd.globals.json) return printJson(cmd.io, { id: workspace.id, env_keys: workspace.env_keys });
    cmd.io.out(`Unset ${key} on workspace ${workspace.id}.\n`);
  },
});
