import type { ApiAnswer, ApiRequest, EventFeed, FollowOptions, RunHost, Transport } from './transport.js';

/** The server's routes, opened in this process on the store (built by the composition root, src/runtime.ts). */
export interface LocalApi {
  /** One JSON exchange with the routes. */
  send(request: ApiRequest): Promise<ApiAnswer>;
  /** Follows an event stream on the engine's bus, as the stream route orders it (replay, then live). */
  follow(options: FollowOptions): EventFeed | Promise<EventFeed>;
  /** Waits for the runs this process set going, then closes the store (releasing its lock). */
  close(): Promise<void>;
}

/** Opens the routes on the store: read-only (`writes: false`), or holding the store's writer lock. */
export type OpenLocalApi = (writes: boolean) => Promise<LocalApi>;

/** Requests in process need an origin; nothing listens there. */
export const LOCAL_ORIGIN = 'http://svc.local';

/**
 * The server's routes called in this process: the same validation, error bodies and views as
 * over HTTP. Reads open the store read-only, so they work while another CLI process holds
 * the writer lock (a foreground `svc run` in another terminal); the first write reopens it with
 * the lock, and everything after goes there. `runs`: where the runs started here execute — in this
 * process, or (a shared database) on whichever server claims them.
 */
export function localTransport(open: OpenLocalApi, runs: Exclude<RunHost, 'server'> = 'process'): Transport {
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

  return {
    baseUrl: LOCAL_ORIGIN,
    send: async (request: ApiRequest) => (await apiFor(request.method)).send(request),
    // After a write, the writer's store: the runs it started publish on its bus.
    follow: async (options: FollowOptions) => (await apiFor('GET')).follow(options),
    runHost: async () => runs,
    async close() {
      const opened = [writer, reader].filter((api): api is Promise<LocalApi> => api !== undefined);
      writer = reader = undefined;
      for (const api of await Promise.allSettled(opened)) if (api.status === 'fulfilled') await api.value.close();
    },
  };
}
