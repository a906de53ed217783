import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { AssistantsConfigService } from '../config/index.js';
import type { Settings } from '../shared/settings.js';
import type { Logger } from '../shared/logger.js';
import type { Store } from '../store/index.js';

/** Whether an executable can be found: an absolute/relative path, or a name on `searchPath` (PATH's form). */
export function isExecutableAvailable(bin: string, searchPath: string): boolean {
  if (!bin) return false;
  const candidates =
    isAbsolute(bin) || bin.includes('/')
      ? [bin]
      : searchPath
          .split(delimiter)
          .filter(Boolean)
          .map((dir) => join(dir, bin));
  return candidates.some((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Agent availability changes rarely; probing PATH on every health call would be wasted work. */
const AVAILABILITY_TTL_MS = 30_000;
let availabilityCache: { bin: string; searchPath: string; at: number; available: boolean } | undefined;

function adapterAvailable(bin: string, searchPath: string): boolean {
  const now = Date.now();
  let cache = availabilityCache;
  if (!cache || cache.bin !== bin || cache.searchPath !== searchPath || now - cache.at > AVAILABILITY_TTL_MS) {
    cache = availabilityCache = { bin, searchPath, at: now, available: isExecutableAvailable(bin, searchPath) };
  }
  return cache.available;
}

export interface RunCounts {
  running: number;
  queued: number;
}

/** What the health report reads. */
export interface HealthSources {
  settings: Settings;
  assistants: Pick<AssistantsConfigService, 'get'>;
  version: string;
  /** When the process started (ms since the epoch), for `uptimeMs`. */
  startedAt: number;
}

/** `GET /api/health`: the default agent, run concurrency, version and uptime. */
export async function healthReport(ctx: HealthSources, counts: RunCounts) {
  const { defaultAssistant, assistants } = await ctx.assistants.get();
  const assistant = assistants[defaultAssistant];
  // An acp assistant's executable is its command's first word; the built-in ones are the settings'.
  const bin = assistant?.kind === 'acp' ? (assistant.command?.[0] ?? '') : defaultAssistant === 'claude' ? ctx.settings.claudeBin : ctx.settings.codexBin;
  return {
    status: 'ok' as const,
    adapter: { name: defaultAssistant, available: adapterAvailable(bin, ctx.settings.searchPath), model: assistant?.model ?? null },
    concurrency: { max: ctx.settings.maxConcurrentRuns, running: counts.running, queued: counts.queued },
    runningWorkflows: counts.running,
    version: ctx.version,
    uptimeMs: Date.now() - ctx.startedAt,
  };
}

/** `GET /health/db`: proves the store both writes and reads, and that the database (if any) answers. */
export async function databaseReport(ctx: { store: Pick<Store, 'check'>; database?: { check(): Promise<void> }; logger: Logger }) {
  try {
    await ctx.store.check();
    // With SVC_DATABASE_URL, connected only when the database answers too.
    await ctx.database?.check();
    return { ok: true as const, body: { status: 'ok' as const, database: 'connected' as const } };
  } catch (error) {
    ctx.logger.error('health.db_unavailable', { error: (error as Error).message });
    return {
      ok: false as const,
      body: { status: 'error' as const, database: 'disconnected' as const, message: `The store cannot be written: ${(error as Error).message}` },
    };
  }
}

export const RELEASES_URL = 'https://www.npmjs.com/package/svc';

/**
 * `GET /api/update-check`. svc runs from source (an npm checkout), never a binary build, so by the
 * spec it answers `updateAvailable: false` and makes no network request.
 */
export function updateCheck(version: string) {
  return { updateAvailable: false, currentVersion: version, latestVersion: version, releaseUrl: RELEASES_URL };
}
