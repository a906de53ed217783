import { CWD_OPTION, defineCommand } from '../../define-command.js';
import { printJson } from '../../output.js';
import { cwdOption } from '../workflow/_shared.js';
import { printTriggers } from './_shared.js';

/**
 * `svc webhook register [--cwd dir]`: registers the webhook triggers of the workflows in this
 * directory (and the workspaces), which a listing never does (docs/decisions.md, "Webhooks"); the
 * server's own directory and its workspaces are registered without it. Prints the triggers now
 * registered for them; problems (a slug claimed elsewhere, a weak secret) go to stderr as
 * `file:line:col: message` lines, and the exit code stays 0, as for `svc workflow list`.
 */
export default defineCommand({
  options: { cwd: CWD_OPTION },
  run: async (cmd, _args, options) => {
    const cwd = cwdOption(options.cwd);
    const result = await cmd.client().webhooks.register(cwd);
    if (cmd.globals.json) return printJson(cmd.io, result);
    if (result.webhooks.length === 0) cmd.io.err(`No webhook triggers in the workflows under ${cwd}.\n`);
    else await printTriggers(cmd, result.webhooks);
    for (const problem of result.errors ?? []) cmd.io.err(`${problem.error}\n`);
  },
});
