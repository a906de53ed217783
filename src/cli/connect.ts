import { createClient, serverOrLocal, type OpenLocalApi, type ServerTarget, type SvcClient } from '../client/index.js';
import { ACTOR_HEADER, type Actor } from '../shared/actor.js';
import type { Settings } from '../shared/settings.js';
import { CliError } from './exit-codes.js';

/** How a command may reach the data: a server, or with none running the API in this process on the store; or a server only. */
export type Reach = 'server-or-local' | 'server';

/** The routes in this process, from the runtime bundle; a store another process writes to, or a database that cannot be used, is a plain CLI error. */
function openLocal(settings: Settings): OpenLocalApi {
  return async (writes) => {
    // The runtime bundle has its own classes: StoreLockedError must come from it, too.
    const { openLocalApi, StoreLockedError, DatabaseUnavailableError } = await import('../runtime.js');
    try {
      return await openLocalApi(settings, writes);
    } catch (error) {
      if (error instanceof StoreLockedError || error instanceof DatabaseUnavailableError) throw new CliError(error.message);
      throw error;
    }
  };
}

/** The client a command works with; `serverOrLocal` decides between the server and the store. */
export function connect(
  settings: Settings,
  target: ServerTarget,
  reach: Reach,
  actor: Extract<Actor, 'cli' | 'mcp'> = 'cli',
  options: { readTimeoutMs?: number } = {},
): SvcClient {
  return createClient(
    serverOrLocal({
      url: target.url,
      explicit: target.explicit,
      running: target.running,
      local: reach === 'server' ? false : openLocal(settings),
      // On a shared database this process executes no run: a server on it claims them (docs/scaling.md).
      localRuns: settings.databaseUrl ? 'database' : 'process',
      ...(options.readTimeoutMs === undefined ? {} : { readTimeoutMs: options.readTimeoutMs }),
    }),
    // The server's audit entries name the CLI (or svc mcp) as the actor of what it changes.
    { headers: { [ACTOR_HEADER]: actor } },
  );
}
