import { defineCommand } from '../../define-command.js';
import { UsageError } from '../../exit-codes.js';
import { printWorkspace, WORKSPACE_ARG } from './_print.js';

/**
 * `svc workspace consent <id> --allow|--revoke`: whether agents may run although the workspace's
 * .env files hold agent keys. The server writes a warn-level audit entry naming the CLI as actor.
 */
export default defineCommand({
  args: [WORKSPACE_ARG],
  options: {
    allow: ['--allow', 'let agents run there despite agent keys in .env files'],
    revoke: ['--revoke', 'block them again'],
  },
  run: async (cmd, [id], options) => {
    if (Boolean(options.allow) === Boolean(options.revoke)) throw new UsageError('give exactly one of --allow or --revoke');
    printWorkspace(cmd, await cmd.client().workspaces.setConsent(id, Boolean(options.allow)));
  },
});
