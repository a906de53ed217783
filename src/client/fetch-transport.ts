import { ServerUnreachableError } from './errors.js';
import { deliverFrame, streamUrl } from './events.js';
import type { ApiAnswer, ApiRequest, EventFeed, FollowOptions, Transport } from './transport.js';

/** How a followed stream is doing, for a page that shows it (the dashboard's "reconnecting…"). */
export type StreamState = 'open' | 'reconnecting';

/**
 * The client over the browser's `fetch` and `EventSource`: what the dashboard (src/web) is built
 * on, so it makes the same calls, with the same paths and errors, as the CLI. State-changing calls
 * always say `Content-Type: application/json`, which the server requires of a browser
 * (server/browser-guard.ts); the session's own origin is the base.
 */
export function fetchTransport(baseUrl: string, onStreamState?: (stream: string, state: StreamState) => void): Transport {
  return {
    baseUrl,
    async send(request: ApiRequest): Promise<ApiAnswer> {
      const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
      if (request.method !== 'GET') headers['content-type'] = 'application/json';
      let response: Response;
      try {
        response = await fetch(new URL(request.path, baseUrl), {
          method: request.method,
          headers,
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
          credentials: 'same-origin',
        });
      } catch (error) {
        throw new ServerUnreachableError(baseUrl, error instanceof Error ? error.message : String(error));
      }
      const text = await response.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // Not JSON: keep the text for the error message.
      }
      return { status: response.status, body };
    },
    // The browser's EventSource reconnects by itself, sending Last-Event-ID; a page wants to keep
    // following for as long as it is open, so only a stream the server ended for good is lost.
    follow: async (options: FollowOptions): Promise<EventFeed> => {
      if (typeof EventSource === 'undefined') throw new Error('This browser has no EventSource.');
      const source = new EventSource(streamUrl(baseUrl, options));
      source.onopen = () => {
        onStreamState?.(options.stream, 'open');
        options.onOpen?.();
      };
      source.onmessage = (message) => deliverFrame(options, message.data);
      source.onerror = () => {
        if (source.readyState === EventSource.CLOSED) options.onLost();
        else onStreamState?.(options.stream, 'reconnecting');
      };
      return { close: () => source.close() };
    },
    runHost: async () => 'server',
    close: async () => {},
  };
}
