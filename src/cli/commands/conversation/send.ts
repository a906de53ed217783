import { defineCommand } from '../../define-command.js';
import { EXIT } from '../../exit-codes.js';
import { printJson } from '../../output.js';
import { sendAndAwaitReply, waitingNote, waitsForServer } from './_reply.js';

/**
 * `svc conversation send <id> <message...>`: sends, then prints the reply as it streams (exit 1
 * when the assistant fails). `--no-wait` only sends and prints the message id. In the CLI's offline
 * mode on a database a server answers; with none up, it says the message waits for one.
 */
export default defineCommand({
  args: [
    ['<conversation>', 'conversation id'],
    ['<message...>', 'the message (a slash command such as /run, /help, or text for the assistant)'],
  ],
  options: { wait: ['--no-wait', 'send only; do not wait for the reply'] },
  run: async (cmd, [id, words], options) => {
    const client = cmd.client();
    const text = words.join(' ');
    if (options.wait === false) {
      const accepted = await client.conversations.send(id, text);
      if (await waitsForServer(client)) cmd.io.err(waitingNote(accepted.messageId, false));
      if (cmd.globals.json) return printJson(cmd.io, accepted);
      cmd.io.out(`${accepted.messageId}\n`);
      return;
    }
    const outcome = await sendAndAwaitReply(client, id, text, cmd.globals.json ? undefined : (delta) => cmd.io.out(delta), (messageId) =>
      cmd.io.err(waitingNote(messageId, true)),
    );
    if (cmd.globals.json) printJson(cmd.io, { content: outcome.content, failed: outcome.failed });
    else if (outcome.failed) cmd.io.err(`${outcome.content}\n`);
    else cmd.io.out(`${outcome.rest}\n`);
    return outcome.failed ? EXIT.failed : 0;
  },
});
