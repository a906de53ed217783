import { join } from 'node:path';
import { AssistantsConfigService } from '../config/assistants.js';
import { EventBus } from '../events/bus.js';
import { createLogger, type Logger } from '../shared/logger.js';
import type { Settings } from '../shared/settings.js';
import { packageVersion } from '../shared/version.js';
import { openFileStore, type FileStore } from '../store/index.js';

/**
 * Everything a front end (the server or the CLI's offline mode) needs, wired once. Domain
 * services are added here as they are built, so routes and commands receive them ready-made.
 */
export interface AppContext {
  settings: Settings;
  logger: Logger;
  store: FileStore;
  bus: EventBus;
  version: string;
  startedAt: number;
  /** The address the server listens on, once it does. */
  listening?: { host: string; port: number; url: string };
  assistants: AssistantsConfigService;
  /** Run in reverse order on shutdown (end SSE streams, stop the scheduler, …). */
  closers: Set<() => unknown>;
}

export interface ContextOptions {
  settings: Settings;
  /** Readable log lines go here (the server's stderr); omitted for CLI use. */
  stderr?: { write(text: string): unknown };
  lock: 'server' | 'cli' | false;
}

export async function createContext(options: ContextOptions): Promise<AppContext> {
  const { settings } = options;
  const logger = createLogger({ level: settings.logLevel, file: join(settings.home, 'logs', 'svc.log'), stderr: options.stderr });
  const store = await openFileStore({ home: settings.home, logger, lock: options.lock });
  try {
    return {
      settings,
      logger,
      store,
      bus: new EventBus(),
      version: packageVersion(),
      startedAt: Date.now(),
      assistants: await AssistantsConfigService.open(store),
      closers: new Set(),
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

export async function closeContext(context: AppContext): Promise<void> {
  await context.store.close();
}
