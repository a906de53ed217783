import { defineCommand } from '../../define-command.js';
import { UsageError } from '../../exit-codes.js';
import { printJson } from '../../output.js';
import { WORKSPACE_ARG } from './_print.js';

/** `svc workspace env set <id> KEY=VALUE…`: values go to the store only; only names come back. */
export default defineCommand({
  args: [WORKSPACE_ARG, ['<assignments...>', 'KEY=VALUE pairs']],
  run: async (cmd, [id, assignments]) => {
    const values: Record<string, string> = {};
    for (const assignment of assignments) {
      const at = assignment.indexOf('=');
      if (at <= 0) throw new UsageError(`expected KEY=VALUE, got '${assignment.includes('=') ? assignment : assignment.slice(0, 40)}'`);
      values[assignment.slice(0, at)] = assignment.slice(at + 1);
    }
    const workspace = await cmd.client().workspaces.setEnv(id, values);
    if (cmd.globals.json) return printJson(cmd.io, { id: workspace.id, env_keys: workspace.env_keys });
    cmd.io.out(`Set ${Object.keys(values).join(', ')} on workspace ${workspace.id} (now: ${workspace.env_keys.join(', ')}).\n`);
  },
});
