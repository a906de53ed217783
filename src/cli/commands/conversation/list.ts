import { defineCommand } from '../../define-command.js';
import { printJson } from '../../output.js';
import { printConversations } from './_print.js';

/** `svc conversation list [--workspace id] [--all]`: newest first. */
export default defineCommand({
  options: {
    workspace: ['-w, --workspace <id>', 'only the conversations of this workspace'],
    all: ['-a, --all', 'include deleted conversations'],
    limit: ['-n, --limit <n>', 'at most this many (default 50, at most 200)'],
  },
  run: async (cmd, _args, options) => {
    const result = await cmd.client().conversations.list({
      ...(options.workspace ? { workspace_id: options.workspace } : {}),
      ...(options.all ? { include_deleted: true } : {}),
      ...(options.limit ? { limit: Number(options.limit) } : {}),
    });
    if (cmd.globals.json) return printJson(cmd.io, result);
    if (result.conversations.length === 0) {
      if (cmd.io.isStdoutTTY) cmd.io.err('No conversations. Start one with `svc chat` or `svc conversation new`.\n');
      return;
    }
    await printConversations(cmd, result.conversations);
  },
});
