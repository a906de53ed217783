import { ServerUnreachableError } from './errors.js';
import { httpTransport } from './http-transport.js';
import { localTransport, type OpenLocalApi } from './local-transport.js';
import { followStream } from './events.js';
import type { ApiRequest, FollowOptions, Transport } from './transport.js';

export interface ServerOrLocalOptions {
  url: string;
  /**
   * How to reach the data when no server answers at `url`: the routes in this process on the
   * store, or `false` (the command needs a server: unreachable → ServerUnreachableError).
   */
  local: OpenLocalApi | false;
  /**
   * Where runs started in this process execute: here (`process`, the file store), or, on a shared
   * database, on the server that claims them (`database`: this process executes none). @default 'process'
   */
  localRuns?: 'process' | 'database';
  /** The user named this server (--url / SVC_URL): never bypass it behind their back. */
  explicit: boolean;
  /** A live server holds the store's lock: it answers, or nothing may touch the store. */
  running: boolean;
  /** How long a read may take before it is given up (default 30 s; shell completion waits less). */
  readTimeoutMs?: number;
}

/**
 * The one place that decides between a server and the store (docs/contract.md, "Without a server"):
 * a server reachable at `url` answers everything; otherwise — unless the user named that server,
 * or a live server holds the lock, or the command needs a server — the routes run in this process.
 * Decided on the first request (an unreachable server costs one refused connection), or by
 * `runHost()` when a command must know before it starts anything.
 */
export function serverOrLocal(options: ServerOrLocalOptions): Transport {
  let chosen: Transport | undefined;

  const fallBack = (unreachable: ServerUnreachableError): Transport => {
    if (options.local === false || options.explicit || options.running) throw unreachable;
    return (chosen = localTransport(options.local, options.localRuns));
  };
  const http = httpTransport(options.url, { readTimeoutMs: options.readTimeoutMs });

  return {
    get baseUrl() {
      return (chosen ?? http).baseUrl;
    },
    async send(request: ApiRequest) {
      if (chosen) return chosen.send(request);
      try {
        const answer = await http.send(request);
        chosen = http;
        return answer;
      } catch (error) {
        if (!(error instanceof ServerUnreachableError)) throw error;
        return fallBack(error).send(request);
      }
    },
    // Before the first request, a stream is the server's (as a request would be, failing when none answers).
    follow: (options: FollowOptions) => followStream(chosen ?? http, options),
    async runHost() {
      if (!chosen) {
        try {
          await http.send({ method: 'GET', path: '/health' });
          chosen = http;
        } catch (error) {
          if (!(error instanceof ServerUnreachableError)) throw error;
          fallBack(error);
        }
      }
      return chosen!.runHost();
    },
    close: async () => chosen?.close(),
  };
}
