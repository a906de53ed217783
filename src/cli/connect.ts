import { createClient, serverOrLocal, type OpenLocalApi, type SvcClient } from '../client/index.js';
import type { Settings } from '../shared/settings.js';
import { readLock } from '../store/lock.js';
import { CliError } from './exit-codes.js';

export interface ServerTarget {
  url: string;
  /** The user named this server (--url / SVC_URL); never fall back to the store behind their back. */
  explicit: boolean;
  /** A live server holds the store lock in $SVC_HOME. */
  running: boolean;
}

/**
 * Which server to talk to: `--url`, then `SVC_URL`, then the URL a live server wrote into the
 * store lock of `$SVC_HOME`, then `http://127.0.0.1:$PORT` (3090).
 */
export function resolveServer(flagUrl: string | undefined, env: NodeJS.ProcessEnv, home: string): ServerTarget {
  if (flagUrl) return { url: flagUrl, explicit: true, running: true };
  if (env.SVC_URL) return { url: env.SVC_URL, explicit: true, running: true };
  const holder = readLock(home);
  if (holder?.kind === 'server' && holder.url) return { url: holder.url, explicit: false, running: true };
  return { url: `http://127.0.0.1:${env.PORT || 3090}`, explicit: false, running: false };
}

/** How a command may reach the data: a server, or with none running the API in this process on the store; or a server only. */
export type Reach = 'server-or-local' | 'server';

/** The routes in this process, from the runtime bundle; a store another process writes to is a plain CLI error. */
function openLocal(settings: Settings): OpenLocalApi {
  return async (writes) => {
    // The runtime bundle has its own classes: StoreLockedError must come from it, too.
    const { openLocalApi, StoreLockedError } = await import('../runtime.js');
    try {
      return await openLocalApi(settings, writes);
    } catch (error) {
      if (error instanceof StoreLockedError) throw new CliError(error.message);
      throw error;
    }
  };
}

/** The client a command works with; `serverOrLocal` decides between the server and the store. */
export function connect(settings: Settings, target: ServerTarget, reach: Reach): SvcClient {
  return createClient(
    serverOrLocal({
      url: target.url,
      explicit: target.explicit,
      running: target.running,
      local: reach === 'server' ? false : openLocal(settings),
    }),
  );
}
