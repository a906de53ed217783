import type { AppContext } from '../app/context.js';
import { loadSettings, SettingsError, type Settings } from '../shared/settings.js';
import { createApiClient, resolveServer, ServerUnreachableError, type ApiClient, type ServerTarget } from './api-client.js';
import { CliError, UsageError } from './exit-codes.js';
import { systemIO, type IO } from './io.js';

/** Options every command accepts (commander globals). */
export interface GlobalOptions {
  url?: string;
  json?: boolean;
  color?: boolean;
}

/** What a command runs with: the terminal, the globals, settings and a way to reach the data. */
export interface CommandContext {
  io: IO;
  globals: GlobalOptions;
  settings: Settings;
  target: ServerTarget;
  client: ApiClient;
}

export function createCommandContext(globals: GlobalOptions, io?: IO): CommandContext {
  const theIO = io ?? systemIO({ noColor: globals.color === false, json: globals.json });
  let settings: Settings;
  try {
    settings = loadSettings(theIO.env);
  } catch (error) {
    if (error instanceof SettingsError) throw new UsageError(error.message);
    throw error;
  }
  const target = resolveServer(globals.url, theIO.env, settings.home);
  return { io: theIO, globals, settings, target, client: createApiClient(target.url) };
}

export interface ServerOrStore<T> {
  /** Through the HTTP API, when a server is reachable. */
  online(client: ApiClient): Promise<T>;
  /** Directly on the store in $SVC_HOME when no server runs; omitted → the server is required (exit 5). */
  offline?: (ctx: AppContext) => Promise<T>;
  /** The offline path writes, so it takes the store's writer lock. */
  writes?: boolean;
}

/**
 * The CLI's two doors onto the same domain: the HTTP API when a server runs, otherwise the store
 * itself (CONTRACT §13). A server the user named explicitly is never silently bypassed.
 */
export async function viaServerOrStore<T>(cmd: CommandContext, ways: ServerOrStore<T>): Promise<T> {
  try {
    return await ways.online(cmd.client);
  } catch (error) {
    if (!(error instanceof ServerUnreachableError) || !ways.offline || cmd.target.explicit || cmd.target.running) throw error;
  }
  return withStore(cmd, ways.writes ?? false, ways.offline);
}

/** Opens the store directly (the offline mode), closing it and releasing its lock afterwards. */
export async function withStore<T>(cmd: CommandContext, writes: boolean, work: (ctx: AppContext) => Promise<T>): Promise<T> {
  // The runtime bundle has its own classes: StoreLockedError must come from it, too.
  const { createContext, closeContext, StoreLockedError } = await import('../runtime.js');
  let ctx: AppContext;
  try {
    ctx = await createContext({ settings: cmd.settings, lock: writes ? 'cli' : false });
  } catch (error) {
    if (error instanceof StoreLockedError) throw new CliError(error.message);
    throw error;
  }
  try {
    return await work(ctx);
  } finally {
    await closeContext(ctx);
  }
}
