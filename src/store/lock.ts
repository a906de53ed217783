import { openSync, closeSync, writeSync, readFileSync, unlinkSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';

/** What the holder of the store lock says about itself. The server adds its URL once listening. */
export interface LockInfo {
  pid: number;
  kind: 'server' | 'cli';
  startedAt: string;
  url?: string;
}

export class StoreLockedError extends Error {
  constructor(readonly holder: LockInfo, lockPath: string) {
    super(
      holder.kind === 'server'
        ? `Another svc server (pid ${holder.pid}${holder.url ? `, ${holder.url}` : ''}) owns the store in ${lockPath.replace(/\/svc\.lock$/, '')}.`
        : `Another svc command (pid ${holder.pid}) is writing the store; try again when it finishes.`,
    );
    this.name = 'StoreLockedError';
  }
}

export const lockPathOf = (home: string) => join(home, 'svc.lock');

function isAlive(pid: number): boolean {
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

/**
 * Lock files this process holds. A lock naming our own pid is ours only if it is in here;
 * otherwise it was left by an earlier process that had the same pid (a restarted container).
 */
const held = new Set<string>();

export interface StoreLock {
  update(patch: Partial<LockInfo>): void;
  release(): void;
}

/**
 * One writer per store (lowdb gives no inter-process safety): `open(…, 'wx')` either creates the
 * lock or fails, so two processes cannot both win; a lock left by a dead process is taken over.
 */
export function acquireLock(home: string, kind: LockInfo['kind']): StoreLock {
  const path = lockPathOf(home);
  let info: LockInfo = { pid: process.pid, kind, startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, JSON.stringify(info));
      closeSync(fd);
      held.add(path);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        held.delete(path);
        process.off('exit', release);
        try {
          const current = JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
          if (current.pid === process.pid) unlinkSync(path);
        } catch {
          // Already gone.
        }
      };
      process.on('exit', release);
      return {
        update(patch) {
          info = { ...info, ...patch };
          const tmp = `${path}.${process.pid}.tmp`;
          writeFileSync(tmp, JSON.stringify(info));
          renameSync(tmp, path);
        },
        release,
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readLock(home);
      if (holder && (holder.pid !== process.pid || held.has(path))) throw new StoreLockedError(holder, path);
      try {
        unlinkSync(path); // stale: its owner died without cleaning up
      } catch {
        // Someone else removed it first; try again.
      }
    }
  }
  throw new Error(`Could not take the store lock ${path}.`);
}
