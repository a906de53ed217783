import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../shared/atomic-file.js';
import type { Logger } from '../shared/logger.js';
import { mapReads } from './_map-reads.js';
import type { Collection, Identified } from './types.js';
import { WriteQueue } from './write-queue.js';

const RECORD_FILE = 'record.json';

/**
 * One folder per record (`<dir>/<id>/record.json`), all loaded into memory at open. A write
 * touches only its own file, so changing one run costs the same with 10 or 10,000 stored; the
 * folder also holds the record's event log and artifacts.
 */
export async function openPerRecordCollection<T extends Identified>(dir: string, logger: Logger): Promise<Collection<T>> {
  await mkdir(dir, { recursive: true });
  const items = new Map<string, T>();
  const queue = new WriteQueue();
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const file = join(dir, entry.name, RECORD_FILE);
    try {
      const record = JSON.parse(await readFile(file, 'utf8')) as T;
      items.set(record.id, record);
    } catch (error) {
      // A folder without a readable record (deleted half-way, or not ours) is skipped, not fatal.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        logger.warn('store.record_unreadable', { file, error: (error as Error).message });
      }
    }
  }

  const reads = mapReads(items);
  return {
    ...reads,
    get size() {
      return reads.size;
    },
    put: (item, options) => {
      items.set(item.id, item);
      return queue.enqueue(item.id, () => writeFileAtomic(join(dir, item.id, RECORD_FILE), JSON.stringify(item), options));
    },
    delete: async (id) => {
      const existed = items.delete(id);
      await queue.enqueue(id, () => rm(join(dir, id), { recursive: true, force: true }));
      return existed;
    },
  };
}
