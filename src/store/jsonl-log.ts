import { appendFile, mkdir, open, readFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from '../shared/logger.js';
import type { AppendLog } from './types.js';

/**
 * Append-only JSON lines, one file per key: what grows with history (run events, messages)
 * costs one small append per entry instead of a rewrite. Appends of one key are serialized so
 * lines never interleave.
 */
export function openJsonlLog<T>(pathOf: (key: string) => string, logger: Logger): AppendLog<T> {
  const tails = new Map<string, Promise<void>>();
  // Keys whose file was checked for a torn last line in this process.
  const checked = new Set<string>();

  const repairTail = async (path: string) => {
    let handle;
    try {
      handle = await open(path, 'r');
    } catch {
      return; // no file yet
    }
    try {
      const { size } = await handle.stat();
      if (size === 0) return;
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      // A crash mid-append leaves a line without its newline; end it so the next entry stays whole.
      if (last[0] !== 0x0a) await appendFile(path, '\n');
    } finally {
      await handle.close();
    }
  };

  return {
    append(key, entry) {
      const path = pathOf(key);
      const line = `${JSON.stringify(entry)}\n`;
      const previous = tails.get(key) ?? Promise.resolve();
      const next = previous.catch(() => {}).then(async () => {
        if (!checked.has(key)) {
          await mkdir(dirname(path), { recursive: true });
          await repairTail(path);
          checked.add(key);
        }
        await appendFile(path, line);
      });
      tails.set(key, next);
      void next.finally(() => {
        if (tails.get(key) === next) tails.delete(key);
      }).catch(() => {});
      return next;
    },
    async read(key) {
      await tails.get(key)?.catch(() => {});
      let text: string;
      try {
        text = await readFile(pathOf(key), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
      const entries: T[] = [];
      const lines = text.split('\n');
      lines.forEach((line, index) => {
        if (line.trim() === '') return;
        try {
          entries.push(JSON.parse(line) as T);
        } catch {
          logger.warn('store.torn_line_skipped', { file: pathOf(key), line: index + 1 });
        }
      });
      return entries;
    },
    async remove(key) {
      await tails.get(key)?.catch(() => {});
      checked.delete(key);
      await rm(pathOf(key), { force: true });
    },
  };
}
