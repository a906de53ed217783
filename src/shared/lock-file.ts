import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The store lock file, as anyone may read it: where it is and who holds it. Taking and releasing
 * it is the store's job (src/store/lock.ts); the client reads it to find the running server.
 */

/** What the holder of the store lock says about itself. The server adds its URL once listening. */
export interface LockInfo {
  pid: number;
  kind: 'server' | 'cli';
  startedAt: string;
  url?: string;
}

export const lockPathOf = (home: string) => join(home, 'svc.lock');

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The current holder, or undefined when the lock is free or stale (its process is gone). */
export function readLock(home: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(lockPathOf(home), 'utf8')) as LockInfo;
    return isAlive(info.pid) ? info : undefined;
  } catch {
    return undefined;
  }
}
