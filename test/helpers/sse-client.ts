// A real SSE client (the eventsource package) that collects a stream's events, for the tests of
// run streams and conversation streams alike.
import { EventSource } from 'eventsource';
import { onCleanup, waitFor, type Json } from './runs.js';
import type { TestServer } from './server.js';

export interface StreamClient {
  events: Json[];
  ids: string[];
  until(predicate: (events: Json[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

/**
 * Opens an SSE stream and collects its events; resolves once the connection is open (the stream
 * subscribes before it answers). Over the server's socket when it has one, else in process through
 * its own `fetch` (the same route and stream, no socket).
 */
export function connect(server: TestServer, path: string, options: { lastEventId?: string } = {}): Promise<StreamClient> {
  const headers: Record<string, string> = options.lastEventId === undefined ? {} : { 'Last-Event-ID': options.lastEventId };
  const base = server.socket ? server.url : 'http://127.0.0.1';
  const send = (input: string | URL, init: RequestInit): Promise<Response> => {
    if (server.socket) return fetch(input, init);
    const url = new URL(input);
    return server.fetch(`${url.pathname}${url.search}`, init);
  };
  const source = new EventSource(`${base}${path}`, {
    fetch: (input, init) => send(input, { ...(init as RequestInit), headers: { ...(init?.headers as Record<string, string>), ...headers } }),
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
