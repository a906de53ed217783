import { defineCommand } from '../../define-command.js';
import { printJson } from '../../output.js';
import { CONVERSATION_ARG } from './_print.js';

/** `svc conversation rm <id>`: a soft delete — hidden from lists, still readable, no new messages. */
export default defineCommand({
  args: [CONVERSATION_ARG],
  run: async (cmd, [id]) => {
    const conversation = await cmd.client().conversations.delete(id);
    if (cmd.globals.json) return printJson(cmd.io, conversation);
    cmd.io.out(`Conversation ${conversation.id} deleted (still readable; \`svc conversation list --all\` shows it).\n`);
  },
});
