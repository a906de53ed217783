// Helpers of the conversation tests: a real server with the fake agents, an SSE client on a
// conversation's stream, and waiting for replies in the messages endpoint.
import { fileURLToPath } from 'node:url';
export { connect, type StreamClient } from './sse-client.js';
import { api, waitFor, type Json, type Target } from './runs.js';

export const FAKE_CODEX = fileURLToPath(new URL('../fixtures/fake-codex', import.meta.url));

export async function createConversation(server: Target, body: Json = {}): Promise<Json> {
  const { status, body: created } = await api(server, 'POST', '/api/conversations', body);
  if (status !== 201) throw new Error(`create answered ${status}: ${JSON.stringify(created)}`);
  return created;
}

export async function send(server: Target, conversationId: string, message: string): Promise<string> {
  const { status, body } = await api(server, 'POST', `/api/conversations/${conversationId}/message`, { message });
  if (status !== 202) throw new Error(`send answered ${status}: ${JSON.stringify(body)}`);
  return body.messageId as string;
}

export async function messages(server: Target, conversationId: string, query = ''): Promise<Json[]> {
  const { status, body } = await api(server, 'GET', `/api/conversations/${conversationId}/messages${query}`);
  if (status !== 200) throw new Error(`messages answered ${status}: ${JSON.stringify(body)}`);
  return body.messages as Json[];
}

/** The message answering `messageId`, once stored. */
export function waitForReply(server: Target, conversationId: string, messageId: string, timeoutMs = 20_000): Promise<Json> {
  return waitFor(
    async () => (await messages(server, conversationId, '?limit=200')).find((m) => m.metadata.replyTo === messageId),
    timeoutMs,
    () => `reply to ${messageId}`,
  );
}
