import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { lockPathOf, readLock, type LockInfo } from '../shared/lock-file.js';

export { lockPathOf, readLock, type LockInfo };

export class StoreLockedError extends Error {
  constructor(
    readonly holder: LockInfo,
    lockPath: string,
  ) {
    super(
      holder.kind === 'server'
        ? `Another svc server (pid ${holder.pid}${holder.url ? `, ${holder.url}` : ''}) owns the store in ${lockPath.replace(/\/svc\.lock$/, '')}.`
        : `Another svc command (pid ${holder.pid}) is writing the store; try again when it finishes.`,
    );
    this.name = 'StoreLockedError';
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
 * Creates `path` with its whole content at once, or fails with EEXIST: the content goes to a
 * private temp file first and `link()` publishes it atomically, so no process ever reads a lock
 * that exists but is still empty.
 */
function createWithContent(path: string, content: string): boolean {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, content);
  try {
    linkSync(tmp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * Removes a lock judged stale, unless it changed since it was read: it is renamed aside first
 * (only one process can rename a given file), then compared. A live lock removed by a race is
 * put back.
 */
function removeStaleLock(path: string, judged: string): void {
  const aside = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
  try {
    renameSync(path, aside);
  } catch {
    return; // someone else took it away first
  }
  if (readFileSync(aside, 'utf8') !== judged) {
    try {
      linkSync(aside, path); // not the stale lock we judged: restore it
    } catch {
      // A third process has created a lock meanwhile; it wins.
    }
  }
  rmSync(aside, { force: true });
}

/**
 * One writer per store (lowdb gives no inter-process safety): the lock is created atomically with
 * its content, so two processes cannot both win; a lock left by a dead process is taken over.
 */
export function acquireLock(home: string, kind: LockInfo['kind']): StoreLock {
  const path = lockPathOf(home);
  let info: LockInfo = { pid: process.pid, kind, startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createWithContent(path, JSON.stringify(info))) {
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
    }
    let judged: string;
    try {
      judged = readFileSync(path, 'utf8');
    } catch {
      continue; // removed meanwhile; try again
    }
    const holder = readLock(home);
    if (holder && (holder.pid !== process.pid || held.has(path))) throw new StoreLockedError(holder, path);
    removeStaleLock(path, judged);
  }
  throw new Error(`Could not take the store lock ${path}.`);
}
