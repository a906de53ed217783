import type { ApiAnswer, ApiRequest, Transport } from './transport.js';

/** The server's routes, opened in this process on the store (built by the composition root, src/runtime.ts). */
export interface LocalApi {
  fetch(request: Request): Promise<Response>;
  /** Waits for the runs this process set going, then closes the store (releasing its lock). */
  close(): Promise<void>;
}

/** Opens the routes on the store: read-only (`writes: false`), or holding the store's writer lock. */
export type OpenLocalApi = (writes: boolean) => Promise<LocalApi>;

/** Requests in process need an origin; nothing listens there. */
export const LOCAL_ORIGIN = 'http://svc.local';

/**
 * The routes called in process through h3's `app.fetch`: the same validation, error bodies and
 * views as over HTTP. Reads open the store read-only, so they work while another CLI process holds
 * the writer lock (a foreground `svc run` in another terminal); the first write reopens it with
 * the lock, and everything after goes there.
 */
export function localTransport(open: OpenLocalApi): Transport {
  let reader: Promise<LocalApi> | undefined;
  let writer: Promise<LocalApi> | undefined;

  const apiFor = async (method: string): Promise<LocalApi> => {
    if (writer) return writer;
    if (method === 'GET') return (reader ??= open(false));
    writer = open(true);
    try {
      await writer;
    } catch (error) {
      writer = undefined;
      throw error;
    }
    return writer;
  };

  const streamFetch = async (url: string | URL, init?: RequestInit) => (await apiFor('GET')).fetch(new Request(url, init));

  return {
    baseUrl: LOCAL_ORIGIN,
    async send({ method, path, body }: ApiRequest): Promise<ApiAnswer> {
      const api = await apiFor(method);
      const payload = body === undefined ? undefined : JSON.stringify(body);
      // The routes read a body only when its length is announced, as node:http's client does.
      const headers: Record<string, string> = { accept: 'application/json' };
      if (payload !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) });
      const response = await api.fetch(new Request(new URL(path, LOCAL_ORIGIN), { method, headers, body: payload }));
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // Not JSON: keep the text.
      }
      return { status: response.status, body: parsed };
    },
    fetch: streamFetch,
    hostsRuns: async () => true,
    async close() {
      const opened = [writer, reader].filter((api): api is Promise<LocalApi> => api !== undefined);
      writer = reader = undefined;
      for (const api of await Promise.allSettled(opened)) if (api.status === 'fulfilled') await api.value.close();
    },
  };
}
