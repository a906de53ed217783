import type { Settings } from '../shared/settings.js';
import { readLock } from '../shared/lock-file.js';

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
export function resolveServer(flagUrl: string | undefined, envUrl: string | undefined, settings: Pick<Settings, 'home' | 'port'>): ServerTarget {
  if (flagUrl) return { url: flagUrl, explicit: true, running: true };
  if (envUrl) return { url: envUrl, explicit: true, running: true };
  const holder = readLock(settings.home);
  if (holder?.kind === 'server' && holder.url) return { url: holder.url, explicit: false, running: true };
  return { url: `http://127.0.0.1:${settings.port ?? 3090}`, explicit: false, running: false };
}
