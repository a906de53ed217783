import type { Command } from 'commander';
import { resolveServer, type ServerTarget, type SvcClient } from '../client/index.js';
import { loadSettings, loadTerminalSettings, SettingsError, type Settings } from '../shared/settings.js';
import { connect, type Reach } from './connect.js';
import { UsageError } from './exit-codes.js';
import { systemIO, type IO } from './io.js';

/** Options every command accepts (commander globals). */
export interface GlobalOptions {
  url?: string;
  json?: boolean;
  color?: boolean;
}

/** What a command runs with: the terminal, the globals, settings, and the API client. */
export interface CommandContext {
  io: IO;
  globals: GlobalOptions;
  settings: Settings;
  target: ServerTarget;
  /**
   * The API client, made on first use; `reach` (first call wins) says whether the store may stand in
   * for a server, `actor` whom its requests name (`mcp` for `svc mcp`: the runs it starts take values from an agent).
   */
  client(reach?: Reach, actor?: 'cli' | 'mcp'): SvcClient;
  /** The whole command tree with every command's arguments and options (help, completion). */
  commandTree(): Promise<Command>;
  /** Closes the client: in process, after the runs this command set going have settled. */
  close(): Promise<void>;
}

export function createCommandContext(globals: GlobalOptions, io?: IO, commandTree: () => Promise<Command> = noTree): CommandContext {
  const theIO = io ?? systemIO({ noColor: globals.color === false, json: globals.json });
  let settings: Settings;
  try {
    settings = loadSettings(theIO.env);
  } catch (error) {
    if (error instanceof SettingsError) throw new UsageError(error.message);
    throw error;
  }
  const target = resolveServer(globals.url, loadTerminalSettings(theIO.env).url, settings);
  let client: SvcClient | undefined;
  return {
    io: theIO,
    globals,
    settings,
    target,
    client: (reach = 'server-or-local', actor = 'cli') => (client ??= connect(settings, target, reach, actor)),
    commandTree,
    close: async () => client?.close(),
  };
}

const noTree = () => Promise.reject(new Error('no command tree in this context'));
