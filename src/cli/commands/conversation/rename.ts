import { defineCommand } from '../../define-command.js';
import { printConversation } from './_print.js';

/** `svc conversation rename <id> <title...>`. */
export default defineCommand({
  args: [
    ['<conversation>', 'conversation id'],
    ['<title...>', 'the new title (at most 200 characters)'],
  ],
  run: async (cmd, [id, title]) => {
    printConversation(cmd, await cmd.client().conversations.rename(id, title.join(' ')));
  },
});
