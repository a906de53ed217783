import type { SvcClient } from '../../../client/index.js';
import { CliError, EXIT } from '../../exit-codes.js';

export interface ReplyOutcome {
  /** The stored reply (or the error message), as the messages endpoint shows it. */
  content: string;
  failed: { code: string; error: string } | null;
}

/** How far back the stream is replayed when a reply is awaited: covers a clock tick and a slow send. */
const REPLAY_MARGIN_MS = 2_000;

/**
 * Sends a message, then waits for its answer on the conversation's stream, handing each reply
 * delta to `onDelta`. Stream positions are microseconds of wall time, so following from just
 * before the send replays whatever answered it before the stream was open; should the server's
 * clock be behind, the stored messages are looked at once the stream is open.
 * Sending first matters in process, where the first write moves the client to the store's
 * writer, whose bus the orchestrator publishes on.
 */
export async function sendAndAwaitReply(client: SvcClient, conversationId: string, text: string, onDelta: (text: string) => void): Promise<ReplyOutcome> {
  const after = (Date.now() - REPLAY_MARGIN_MS) * 1000;
  const { messageId } = await client.conversations.send(conversationId, text);
  return new Promise<ReplyOutcome>((resolve, reject) => {
    let feed: { close(): void } | undefined;
    let finished = false;
    const finish = (outcome: ReplyOutcome | Error) => {
      if (finished) return;
      finished = true;
      feed?.close();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    client.events
      .follow({
        stream: conversationId,
        after,
        onEvent: (event) => {
          if ('runId' in event) return;
          if (event.type === 'assistant_delta' && event.messageId === messageId) onDelta(event.text);
          if (event.type !== 'message' || event.message.metadata.replyTo !== messageId) return;
          const { code, error } = event.message.metadata;
          finish({ content: event.message.content, failed: code ? { code, error: error ?? event.message.content } : null });
        },
        onLost: () => finish(new CliError(`Lost the connection to ${client.baseUrl} while waiting for the reply.`, EXIT.unreachable)),
      })
      .then(async (opened) => {
        feed = opened;
        if (finished) return opened.close();
        // The replay starts from this machine's clock; a server whose clock is behind may have
        // stored the answer at a position before it. Once the stream is open, nothing later can be
        // missed, so one look at the stored messages covers what came before.
        const page = await client.conversations.messages(conversationId, { limit: 50 });
        const stored = page.messages.find((message) => message.metadata.replyTo === messageId);
        if (stored) {
          const { code, error } = stored.metadata;
          finish({ content: stored.content, failed: code ? { code, error: error ?? stored.content } : null });
        }
      })
      .catch(finish);
  });
}
