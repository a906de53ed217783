import { defineCommand } from '../../define-command.js';
import { CliError, EXIT, UsageError } from '../../exit-codes.js';
import { printJson } from '../../output.js';
import { ask } from '../../prompt.js';
import { WORKSPACE_ARG } from './_print.js';

/**
 * `svc workspace rm <id>`: removes its worktrees, their branches, our clone and the registration.
 * Asks first on a terminal; elsewhere `--yes` is required, so a script never deletes by accident.
 */
export default defineCommand({
  args: [WORKSPACE_ARG],
  options: { yes: ['-y, --yes', 'do not ask for confirmation'] },
  run: async (cmd, [id], options) => {
    const client = cmd.client();
    if (!options.yes) {
      if (!cmd.io.canPrompt) throw new UsageError('pass --yes to remove a workspace without a terminal to confirm on');
      const workspace = await client.workspaces.get(id);
      const prompts = await import('@clack/prompts');
      const what = workspace.source === 'clone' ? `its clone at ${workspace.path}` : `its worktrees (your directory ${workspace.path} stays)`;
      const asked = await ask(cmd.io, (terminal) =>
        prompts.confirm({ message: `Remove workspace ${workspace.name} (${workspace.id}) and ${what}?`, initialValue: false, ...terminal }),
      );
      if ('ended' in asked && asked.ended === 'stdin-closed')
        throw new UsageError('stdin closed before an answer; nothing was removed (pass --yes to remove without asking)');
      if (!('answer' in asked) || !asked.answer) throw new CliError('Not removed.', EXIT.cancelled);
    }
    const result = await client.workspaces.delete(id);
    if (cmd.globals.json) return printJson(cmd.io, result);
    cmd.io.out(`Workspace ${result.id} removed.\n`);
  },
});
