import { mkdir, rm, writeFile, readFile } from 'node:fs/promises';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../shared/logger.js';
import { acquireLock, type LockInfo, type StoreLock } from './lock.js';
import { openJsonlLog } from './jsonl-log.js';
import { openPerRecordCollection } from './per-record-collection.js';
import { openSingleFileCollection } from './single-file-collection.js';
import type { AppendLog, Collection, CollectionLayout, Identified, Store } from './types.js';

export interface FileStoreOptions {
  home: string;
  logger: Logger;
  /** Who takes the writer lock; `false` opens read-only without a lock (CLI reads). */
  lock: LockInfo['kind'] | false;
}

export interface FileStore extends Store {
  /** The writer lock, to publish the server URL once listening. */
  readonly lock: StoreLock | undefined;
}

const NAME = /^[a-z][a-z0-9-]*$/;

/**
 * The embedded store under `$SVC_HOME/data`: `<name>.json` for small collections (lowdb),
 * `<name>/<id>/record.json` for per-record ones, `<name>/<key>.jsonl` (or beside a record) for logs.
 */
export async function openFileStore(options: FileStoreOptions): Promise<FileStore> {
  const dataRoot = join(options.home, 'data');
  await mkdir(dataRoot, { recursive: true });
  const lock = options.lock ? acquireLock(options.home, options.lock) : undefined;
  const collections = new Map<string, Promise<Collection<Identified>>>();
  const logs = new Set<{ close(): Promise<void> }>();
  const pending = new Set<Promise<unknown>>();
  const track = <T>(promise: Promise<T>): Promise<T> => {
    pending.add(promise);
    void promise.finally(() => pending.delete(promise)).catch(() => {});
    return promise;
  };
  const readOnlyGuard = <T extends Identified>(collection: Collection<T>): Collection<T> =>
    lock
      ? {
          ...collection,
          get size() {
            return collection.size;
          },
          put: (item, options) => track(collection.put(item, options)),
          delete: (id) => track(collection.delete(id)),
        }
      : {
          ...collection,
          get size() {
            return collection.size;
          },
          put: () => Promise.reject(new Error('The store was opened read-only.')),
          delete: () => Promise.reject(new Error('The store was opened read-only.')),
        };

  const flush = async () => {
    while (pending.size > 0) await Promise.allSettled([...pending]);
  };

  return {
    home: options.home,
    lock,
    collection<T extends Identified>(name: string, layout: CollectionLayout = 'single') {
      if (!NAME.test(name)) throw new Error(`Invalid collection name '${name}'.`);
      let opened = collections.get(name);
      if (!opened) {
        opened = (
          layout === 'single' ? openSingleFileCollection<T>(join(dataRoot, `${name}.json`)) : openPerRecordCollection<T>(join(dataRoot, name), options.logger)
        ).then((c) => readOnlyGuard(c) as unknown as Collection<Identified>);
        collections.set(name, opened);
      }
      return opened as unknown as Promise<Collection<T>>;
    },
    log<T>(name: string): AppendLog<T> {
      if (!NAME.test(name)) throw new Error(`Invalid log name '${name}'.`);
      // `runs/<id>/events.jsonl`-style logs live beside their record; a key with a slash says so.
      const inner = openJsonlLog<T>((key) => join(dataRoot, name, `${key}.jsonl`), options.logger);
      logs.add(inner);
      return {
        append: (key, entry) => (lock ? track(inner.append(key, entry)) : Promise.reject(new Error('The store was opened read-only.'))),
        read: (key) => inner.read(key),
        remove: (key) => track(inner.remove(key)),
        keys: (prefix) => inner.keys(prefix),
      };
    },
    dataDir(...segments) {
      const dir = join(dataRoot, ...segments);
      mkdirSync(dir, { recursive: true });
      return dir;
    },
    async check() {
      // A probe file of its own per check: concurrent checks must not read or remove each other's.
      const token = randomBytes(8).toString('hex');
      const probe = join(dataRoot, `.health-probe-${token}`);
      await writeFile(probe, token);
      const back = await readFile(probe, 'utf8');
      await rm(probe, { force: true });
      if (back !== token) throw new Error('The store read back something other than it wrote.');
    },
    flush,
    async close() {
      await flush();
      // The files the logs keep open for their next appends.
      await Promise.all([...logs].map((log) => log.close()));
      lock?.release();
    },
  };
}
