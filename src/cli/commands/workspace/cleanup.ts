import { ApiResponseError } from '../../../client/index.js';
import { defineCommand } from '../../define-command.js';
import { UsageError } from '../../exit-codes.js';
import { printJson } from '../../output.js';
import { printEnvironments } from './_print.js';

/** `svc workspace cleanup [--older-than 7d]`: removes worktrees of runs that ended before then. */
export default defineCommand({
  options: {
    olderThan: ['--older-than <age>', 'runs that ended longer ago than this: 30s, 90m, 12h, 7d, 2w (default 7d)'],
    workspace: ['--workspace <id>', 'only this workspace'],
  },
  run: async (cmd, _args, options) => {
    const result = await cmd
      .client()
      .workspaces.cleanup({ olderThan: options.olderThan ?? '7d', ...(options.workspace ? { workspaceId: options.workspace } : {}) })
      .catch((error: unknown) => {
        // The API checks the age (one rule for both front ends); a bad flag is still a usage error here.
        if (error instanceof ApiResponseError && error.error === 'invalid_request')
          throw new UsageError(`--older-than: ${error.issues[0]?.message ?? error.message}`);
        throw error;
      });
    if (cmd.globals.json) return printJson(cmd.io, result);
    if (result.removed.length === 0) return cmd.io.out('Nothing to clean up.\n');
    cmd.io.out(`Removed ${result.removed.length} worktree(s):\n`);
    await printEnvironments(cmd, result.removed);
  },
});
