import { createInterface } from 'node:readline';
import type { SvcClient } from '../../../client/index.js';
import type { CommandContext } from '../../context.js';
import { defineCommand } from '../../define-command.js';
import { EXIT } from '../../exit-codes.js';
import { styler } from '../../output.js';
import { sendAndAwaitReply, waitingNote } from './_reply.js';
import { ChatRuns } from './_runs.js';
import { CHAT_PLACEHOLDER, ChatScreen } from './_screen.js';

/**
 * `svc chat [<conversation>]`: a conversation with the orchestrator (a new one unless named). On a
 * terminal, @clack/prompts reads each message and the reply streams as it arrives; Ctrl+C leaves
 * (a reply still coming is stored by the server and shows in `svc conversation show`). Piped,
 * each line of stdin is one message, replies go to stdout, and the exit code is 1 when any
 * answer was an agent failure — so it can be scripted. In the CLI's offline mode on a database a
 * server answers; with none up, it says each message waits for one.
 *
 * A `/run` is followed to its outcome as `svc run` follows a run (issue 32: it used to say only
 * "started"). On a terminal the chat stays usable meanwhile, and the run's lines appear as they
 * happen. Piped, the next line is read once the run settled (or stopped at a durable wait), so
 * the output reads in order, and a failed run counts as a failure for the exit code.
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
  const inProcess = (await client.runHost()) === 'process';
  const runs = new ChatRuns(client, cmd.io, (text) => cmd.io.out(text), { untilWaiting: true, inProcess });
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
    if (outcome.runId) {
      const run = await runs.follow(outcome.runId);
      // A follow that ended without an outcome (the server gone) is a failure to a script too.
      if (!run || run.status === 'failed') failures++;
    }
  }
  return failures > 0 ? EXIT.failed : 0;
}

async function interactive(cmd: CommandContext, client: SvcClient, conversationId: string): Promise<number> {
  const prompts = await import('@clack/prompts');
  const p = await styler(cmd.io);
  // The command's terminal, not the process's: tests drive the prompt through an in-memory one.
  const terminal = { input: cmd.io.stdin, output: cmd.io.stdout };
  const screen = new ChatScreen(cmd.io);
  // With a server the chat follows a run through a durable wait too: the server continues it, and the prompt stays usable.
  const inProcess = (await client.runHost()) === 'process';
  const runs = new ChatRuns(client, cmd.io, screen.print, { untilWaiting: inProcess, inProcess });
  prompts.intro(`svc chat ${conversationId} — /help for commands, Ctrl+C to leave`, terminal);
  for (;;) {
    // Ctrl+C, Esc or stdin closed (a terminal gone): leave.
    const asked = await screen.ask((options) => prompts.text({ message: 'you', placeholder: CHAT_PLACEHOLDER, ...options }));
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
      const outcome = await screen.replying(async () => {
        cmd.io.out(p.green('assistant: '));
        const answered = await sendAndAwaitReply(
          client,
          conversationId,
          text,
          (delta) => cmd.io.out(delta),
          (messageId) => cmd.io.out(`\n${p.dim(waitingNote(messageId, true))}`),
        );
        if (answered.failed) cmd.io.out(`\n${p.red(answered.content)}\n`);
        else cmd.io.out(`${answered.rest}\n`);
        return answered;
      });
      // Followed in the background: its lines reach the screen between prompts (ChatScreen).
      if (outcome.runId) void runs.follow(outcome.runId);
    } finally {
      process.removeListener('SIGINT', leave);
    }
  }
  // The runs go on; their outcomes are posted in the conversation.
  runs.stop();
  prompts.outro('Bye.', terminal);
  return 0;
}
