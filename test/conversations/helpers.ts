// Helpers of the conversation tests: a real server with the fake agents, an SSE client on a
// conversation's stream, and waiting for replies in the messages endpoint.
import { EventSource } from 'eventsource';
import { fileURLToPath } from 'node:url';
import type { TestServer } from '../helpers/server.js';
import { api, onCleanup, waitFor, type Json } from '../engine/helpers.js';

export const FAKE_CODEX = fileURLToPath(new URL('../fixtures/fake-codex', import.meta.url));

export interface StreamClient {
  events: Json[];
  ids: string[];
  until(predicate: (events: Json[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens an SSE stream and collects its events; resolves once the connection is open. */
export function connect(server: TestServer, path: string, options: { lastEventId?: string } = {}): Promise<StreamClient> {
  const headers: Record<string, string> = options.lastEventId === undefined ? {} : { 'Last-Event-ID': options.lastEventId };
  const source = new EventSource(`${server.url}${path}`, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }),
  });
  const client: StreamClient = {
    events: [],
    ids: [],
    until: (predicate, timeoutMs = 30_000) =>
      waitFor(
        () => predicate(client.events),
        timeoutMs,
        () => `for SSE events on ${path}; got ${client.events.map((e) => e.type).join(',')}`,
      ).then(() => undefined),
    close: () => source.close(),
  };
  source.onmessage = (message) => {
    client.events.push(JSON.parse(message.data));
    client.ids.push(message.lastEventId);
  };
  onCleanup(() => source.close());
  return new Promise((resolve, reject) => {
    source.onopen = () => resolve(client);
    source.onerror = (error) => {
      if (source.readyState === EventSource.CLOSED) reject(new Error(`SSE ${path} failed: ${error.message ?? error.code}`));
    };
  });
}

export async function createConversation(server: TestServer, body: Json = {}): Promise<Json> {
  const { status, body: created } = await api(server, 'POST', '/api/conversations', body);
  if (status !== 201) throw new Error(`create answered ${status}: ${JSON.stringify(created)}`);
  return created;
}

export async function send(server: TestServer, conversationId: string, message: string): Promise<string> {
  const { status, body } = await api(server, 'POST', `/api/conversations/${conversationId}/message`, { message });
  if (status !== 202) throw new Error(`send answered ${status}: ${JSON.stringify(body)}`);
  return body.messageId as string;
}

export async function messages(server: TestServer, conversationId: string, query = ''): Promise<Json[]> {
  const { status, body } = await api(server, 'GET', `/api/conversations/${conversationId}/messages${query}`);
  if (status !== 200) throw new Error(`messages answered ${status}: ${JSON.stringify(body)}`);
  return body.messages as Json[];
}

/** The message answering `messageId`, once stored. */
export function waitForReply(server: TestServer, conversationId: string, messageId: string, timeoutMs = 20_000): Promise<Json> {
  return waitFor(
    async () => (await messages(server, conversationId, '?limit=200')).find((m) => m.metadata.replyTo === messageId),
    timeoutMs,
    () => `reply to ${messageId}`,
  );
}
