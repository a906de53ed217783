import pg from 'pg';
import type { Logger } from '../../shared/logger.js';
import { CONNECT_TIMEOUT_MS } from './errors.js';

/**
 * LISTEN/NOTIFY between servers sharing a database (docs/scaling.md): what one server tells the
 * others — "run X was cancelled", "events up to position P exist". A notification is a hint, never
 * the data: one sent while a listener was disconnected is lost, so a listener is told when it has
 * reconnected and catches up from the tables. Payloads are short (PostgreSQL caps them at 8000 bytes).
 */
export interface Notifier {
  /** Sends `payload` on `channel` to every listener, this process's included; delivered at commit. */
  notify(channel: string, payload: string): Promise<void>;
  /** Calls `handler` for each notification on `channel` until the returned function is called. */
  listen(channel: string, handler: (payload: string) => void): Promise<() => Promise<void>>;
  /** Calls `handler` after each reconnection of the listening connection (notifications may have been missed). */
  onReconnect(handler: () => void): () => void;
  close(): Promise<void>;
}

/** Channel names are identifiers: quoted, so case and underscores are kept as given. */
const NAME = /^[a-z][a-z0-9_]{0,62}$/;
const quoted = (channel: string) => {
  if (!NAME.test(channel)) throw new Error(`Invalid channel name '${channel}'.`);
  return `"${channel}"`;
};

export interface NotifierOptions {
  url: string;
  logger: Logger;
  /** Sends go through the store's pool; LISTEN needs a connection of its own. */
  send: (text: string, params: unknown[]) => Promise<unknown>;
  /** The first wait before reconnecting; doubled up to 5 s. @default 100 */
  retryMs?: number;
}

export async function openNotifier(options: NotifierOptions): Promise<Notifier> {
  const handlers = new Map<string, Set<(payload: string) => void>>();
  const reconnected = new Set<() => void>();
  let client: pg.Client | undefined;
  let closed = false;
  let retry = options.retryMs ?? 100;

  const deliver = (message: pg.Notification) => {
    for (const handler of handlers.get(message.channel) ?? []) {
      try {
        handler(message.payload ?? '');
      } catch (error) {
        options.logger.warn('store.notification_handler_failed', { channel: message.channel, error: (error as Error).message });
      }
    }
  };

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: options.url, application_name: 'svc-listen', connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    next.on('notification', deliver);
    // The connection dropped (the server restarted, or terminated it): listen again on a new one.
    next.on('error', (error) => options.logger.warn('store.listen_connection_lost', { error: error.message }));
    next.on('end', () => {
      if (closed || client !== next) return;
      client = undefined;
      void reconnect();
    });
    await next.connect();
    for (const channel of handlers.keys()) await next.query(`LISTEN ${quoted(channel)}`);
    client = next;
  };

  const reconnect = async (): Promise<void> => {
    while (!closed) {
      await new Promise((resolve) => setTimeout(resolve, retry));
      try {
        await connect();
        retry = options.retryMs ?? 100;
        for (const handler of reconnected) handler();
        return;
      } catch (error) {
        options.logger.warn('store.listen_reconnect_failed', { error: (error as Error).message });
        retry = Math.min(retry * 2, 5000);
      }
    }
  };

  await connect();
  return {
    async notify(channel, payload) {
      quoted(channel);
      await options.send('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async listen(channel, handler) {
      let set = handlers.get(channel);
      const first = !set;
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
      }
      set.add(handler);
      // Not connected right now: the reconnection listens on every channel in the map.
      if (first) await client?.query(`LISTEN ${quoted(channel)}`);
      return async () => {
        set.delete(handler);
        if (set.size > 0 || handlers.get(channel) !== set) return;
        handlers.delete(channel);
        await client?.query(`UNLISTEN ${quoted(channel)}`).catch(() => {});
      };
    },
    onReconnect(handler) {
      reconnected.add(handler);
      return () => reconnected.delete(handler);
    },
    async close() {
      closed = true;
      const last = client;
      client = undefined;
      await last?.end().catch(() => {});
    },
  };
}
