import { defineCommand } from '../../define-command.js';
import { printJson, styler } from '../../output.js';
import { CONVERSATION_ARG, formatMessage, printConversation } from './_print.js';

/** `svc conversation show <id> [-n N]`: the record and its newest messages. */
export default defineCommand({
  args: [CONVERSATION_ARG],
  options: { limit: ['-n, --limit <n>', 'how many of the newest messages (default 20, at most 200)'] },
  run: async (cmd, [id], options) => {
    const client = cmd.client();
    const conversation = await client.conversations.get(id);
    const page = await client.conversations.messages(conversation.id, { limit: options.limit ? Number(options.limit) : 20 });
    if (cmd.globals.json) return printJson(cmd.io, { conversation, ...page });
    printConversation(cmd, conversation);
    const p = await styler(cmd.io);
    if (page.messages.length) cmd.io.out('\n');
    for (const message of page.messages) cmd.io.out(`${formatMessage(p, message)}\n`);
    if (page.next_before) cmd.io.err(p.dim(`(older messages: GET /api/conversations/${conversation.id}/messages?before=${page.next_before})\n`));
  },
});
