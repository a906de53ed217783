import { defineCommand } from '../../define-command.js';
import { printJson } from '../../output.js';
import { printConversations } from './_print.js';

/** `svc conversation list [--workspace name|id] [--all]`: newest first. */
export default defineCommand({
  options: {
    workspace: ['-w, --workspace <workspace>', 'only the conversations of this workspace (name, id or id prefix)'],
    all: ['-a, --all', 'include deleted conversations'],
    limit: ['-n, --limit <n>', 'at most this many (default 50, at most 200)'],
  },
  run: async (cmd, _args, options) => {
    const client = cmd.client();
    // The filter is by the id conversations keep: a name or prefix is resolved (or refused) first.
    const workspaceId = options.workspace ? (await client.workspaces.get(options.workspace)).id : undefined;
    const result = await client.conversations.list({
      ...(workspaceId ? { workspace_id: workspaceId } : {}),
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
