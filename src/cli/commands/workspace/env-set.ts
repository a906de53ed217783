import { defineCommand } from '../../define-command.js';
import { UsageError } from '../../exit-codes.js';
import { printJson } from '../../output.js';
import { WORKSPACE_ARG } from './_print.js';
import { readSecretValue } from '../../secret-value.js';

/**
 * `svc workspace env set <id> KEY=VALUE… | KEY`: values go to the store only; only names come
 * back. `KEY` alone reads its value from stdin (or asks, hidden), so a secret need not appear in
 * the shell history or in `ps`.
 */
export default defineCommand({
  args: [WORKSPACE_ARG, ['<assignments...>', 'KEY=VALUE pairs, or one KEY whose value comes from stdin']],
  run: async (cmd, [id, assignments]) => {
    const values: Record<string, string> = {};
    const bare = assignments.filter((assignment) => !assignment.includes('='));
    if (bare.length > 1) throw new UsageError(`only one KEY can take its value from stdin (got ${bare.join(', ')})`);
    for (const assignment of assignments) {
      const at = assignment.indexOf('=');
      if (at === 0) throw new UsageError(`expected KEY=VALUE, got '${assignment.slice(0, 40)}'`);
      if (at > 0) values[assignment.slice(0, at)] = assignment.slice(at + 1);
    }
    if (bare[0] !== undefined) values[bare[0]] = await readSecretValue(cmd.io, bare[0]);
    const workspace = await cmd.client().workspaces.setEnv(id, values);
    if (cmd.globals.json) return printJson(cmd.io, { id: workspace.id, env_keys: workspace.env_keys });
    cmd.io.out(`Set ${Object.keys(values).join(', ')} on workspace ${workspace.id} (now: ${workspace.env_keys.join(', ')}).\n`);
  },
});
