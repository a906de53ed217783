import { createClient } from '../client/client.js';
import { ApiResponseError } from '../client/errors.js';
import { fetchTransport, type StreamState } from '../client/fetch-transport.js';

type Listener = (state: StreamState | 'lost') => void;
const listeners = new Set<Listener>();

/** Tells the page header how the live streams are doing. */
export function onStreamState(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function reportStreamState(state: StreamState | 'lost'): void {
  for (const listener of listeners) listener(state);
}

/** The same typed client the CLI uses, over the browser's fetch and EventSource, on this page's own origin. */
export const client = createClient(fetchTransport(location.origin, (_stream, state) => reportStreamState(state)));

/** What to show a person when a call fails: the server's message, else the error's. */
export function errorText(error: unknown): string {
  if (error instanceof ApiResponseError) return error.message;
  return error instanceof Error ? error.message : String(error);
}
