import type { SvcClient } from '../../../client/index.js';
import { CliError, EXIT } from '../../exit-codes.js';

export interface ReplyOutcome {
  /** The stored reply (or the error message), as the messages endpoint shows it. */
  content: string;
  failed: { code: string; error: string } | null;
  /** The run the message started (`/run`): the chat follows it to its outcome. */
  runId?: string;
}

export interface AwaitedReply extends ReplyOutcome {
  /** What of the reply is still to print after the deltas handed to `onDelta` (see `unshown`). */
  rest: string;
}

function outcomeOf(message: { content: string; metadata: { code?: string; error?: string; runId?: string } }): ReplyOutcome {
  const { code, error, runId } = message.metadata;
  return { content: message.content, failed: code ? { code, error: error ?? message.content } : null, ...(runId ? { runId } : {}) };
}

/**
 * Sends a message, then waits for its answer on the conversation's stream, handing each reply
 * delta to `onDelta`. The stream is followed live from when it opens, then the stored messages are
 * looked at once: together they miss nothing, on either store (stream positions are wall-clock
 * microseconds on the file store but a sequence on PostgreSQL, so this machine's clock cannot say
 * where to replay from). Deltas sent before the stream opened are not seen: `rest` is what of the
 * reply still needs printing after the deltas handed to `onDelta` (none are, without it).
 * Sending first matters in process, where the first write moves the client to the store's
 * writer, whose bus the orchestrator publishes on. `onWaiting` is called when the message waits
 * for a server that is not up (the CLI's offline mode on a database, docs/scaling.md).
 */
export async function sendAndAwaitReply(
  client: SvcClient,
  conversationId: string,
  text: string,
  onDelta: ((text: string) => void) | undefined,
  onWaiting: (messageId: string) => void = () => {},
): Promise<AwaitedReply> {
  const { messageId } = await client.conversations.send(conversationId, text);
  if (await waitsForServer(client)) onWaiting(messageId);
  let shown = '';
  return new Promise<AwaitedReply>((resolve, reject) => {
    let feed: { close(): void } | undefined;
    let finished = false;
    const finish = (outcome: ReplyOutcome | Error) => {
      if (finished) return;
      finished = true;
      feed?.close();
      if (outcome instanceof Error) reject(outcome);
      else resolve({ ...outcome, rest: unshown(outcome.content, shown) });
    };
    client.events
      .follow({
        stream: conversationId,
        onEvent: (event) => {
          if ('runId' in event) return;
          if (event.type === 'assistant_delta' && event.messageId === messageId && onDelta) {
            shown += event.text;
            onDelta(event.text);
          }
          if (event.type === 'message' && event.message.metadata.replyTo === messageId) finish(outcomeOf(event.message));
        },
        onLost: () => finish(new CliError(`Lost the connection to ${client.baseUrl} while waiting for the reply.`, EXIT.unreachable)),
      })
      .then(async (opened) => {
        feed = opened;
        if (finished) return opened.close();
        // Once the stream is open, nothing later can be missed: one look at the stored messages covers what came before.
        const page = await client.conversations.messages(conversationId, { limit: 50 });
        const stored = page.messages.find((message) => message.metadata.replyTo === messageId);
        if (stored) finish(outcomeOf(stored));
      })
      .catch(finish);
  });
}

/**
 * The CLI's offline mode on a database answers no message: a server does (docs/scaling.md). With
 * none up, the message waits pending until one starts, and the user is told so.
 */
export async function waitsForServer(client: SvcClient): Promise<boolean> {
  if ((await client.runHost()) !== 'database') return false;
  // `concurrency.store` is in the route's answer with a database (server/routes/health.ts), not in the client's Health type.
  const { concurrency } = (await client.system.health()) as { concurrency: { store?: { servers?: number } } };
  return (concurrency.store?.servers ?? 0) === 0;
}

/** The note printed when a message waits for a server (`onWaiting`). */
export function waitingNote(messageId: string, wait: boolean): string {
  const note = `svc: no server is up on the database: message ${messageId} waits \`pending\` until a server on it (\`svc serve\` with SVC_DATABASE_URL) answers it.`;
  return wait ? `${note} Ctrl-C stops waiting; the message stays queued.\n` : `${note}\n`;
}

/**
 * What of a reply is still to print after the deltas shown: all of it when none was shown, the
 * rest when they began it, all of it again when the stream was joined mid-reply (they end it);
 * nothing when the agent's final text differs from what it streamed (the stream stands).
 */
function unshown(content: string, shown: string): string {
  if (shown === '') return content;
  if (content.startsWith(shown)) return content.slice(shown.length);
  return content.endsWith(shown) ? `\n${content}` : '';
}
