import { createInterface } from 'node:readline';
import type { SvcClient } from '../../../client/index.js';
import type { CommandContext } from '../../context.js';
import { defineCommand } from '../../define-command.js';
import { EXIT } from '../../exit-codes.js';
import { styler } from '../../output.js';
import { ask } from '../../prompt.js';
import { sendAndAwaitReply, waitingNote } from './_reply.js';

/**
 * `svc chat [<conversation>]`: a conversation with the orchestrator (a new one unless named). On a
 * terminal, @clack/prompts reads each message and the reply streams as it arrives; Ctrl+C leaves
 * (a reply still coming is stored by the server and shows in `svc conversation show`). Piped,
 * each line of stdin is one message, replies go to stdout, and the exit code is 1 when any
 * answer was an agent failure — so it can be scripted. In the CLI's offline mode on a database a
 * server answers; with none up, it says each message waits for one.
 */
export default defineCommand({
  args: [['[conversation]', 'conversation id (default: a new conversation)']],
  options: { workspace: ['-w, --workspace <workspace>', 'the workspace of a new conversation (name, id or id prefix)'] },
  run: async (cmd, [given], options) => {
    const client = cmd.client();
    const conversation = given
      ? await client.conversations.get(given)
      : await client.conversations.create(options.workspace ? { workspace_id: options.workspace } : {});
    if (!given) cmd.io.err(`Conversation ${conversation.id}\n`);
    return cmd.io.canPrompt ? interactive(cmd, client, conversation.id) : piped(cmd, client, conversation.id);
  },
});

async function piped(cmd: CommandContext, client: SvcClient, conversationId: string): Promise<number> {
  let failures = 0;
  const lines = createInterface({ input: cmd.io.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    const outcome = await sendAndAwaitReply(
      client,
      conversationId,
      line,
      (delta) => cmd.io.out(delta),
      (messageId) => cmd.io.err(waitingNote(messageId, true)),
    );
    if (outcome.failed) {
      failures++;
      cmd.io.err(`${outcome.content}\n`);
    } else cmd.io.out(`${outcome.rest}\n`);
  }
  return failures > 0 ? EXIT.failed : 0;
}

async function interactive(cmd: CommandContext, client: SvcClient, conversationId: string): Promise<number> {
  const prompts = await import('@clack/prompts');
  const p = await styler(cmd.io);
  // The command's terminal, not the process's: tests drive the prompt through an in-memory one.
  const terminal = { input: cmd.io.stdin, output: cmd.io.stdout };
  prompts.intro(`svc chat ${conversationId} — /help for commands, Ctrl+C to leave`, terminal);
  for (;;) {
    // Ctrl+C, Esc or stdin closed (a terminal gone): leave.
    const asked = await ask(cmd.io, (options) => prompts.text({ message: 'you', placeholder: 'a message, or /help', ...options }));
    if (!('answer' in asked)) break;
    const text = asked.answer;
    if (text.trim() === '') continue;
    // Ctrl+C while a reply streams leaves at once; the server finishes and stores the reply.
    const leave = () => {
      cmd.io.out('\n');
      prompts.outro(`Left; the reply will be in \`svc conversation show ${conversationId}\`.`, terminal);
      process.exit(0);
    };
    process.once('SIGINT', leave);
    try {
      cmd.io.out(p.green('assistant: '));
      const outcome = await sendAndAwaitReply(
        client,
        conversationId,
        text,
        (delta) => cmd.io.out(delta),
        (messageId) => cmd.io.out(`\n${p.dim(waitingNote(messageId, true))}`),
      );
      if (outcome.failed) cmd.io.out(`\n${p.red(outcome.content)}\n`);
      else cmd.io.out(`${outcome.rest}\n`);
    } finally {
      process.removeListener('SIGINT', leave);
    }
  }
  prompts.outro('Bye.', terminal);
  return 0;
}
