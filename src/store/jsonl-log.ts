import { appendFile, mkdir, open, readdir, readFile, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from '../shared/logger.js';
import type { AppendLog } from './types.js';

/**
 * Logs whose file stays open for the next append, per log: an append is then one write, not an
 * open, a write and a close — three thread-pool round trips that ran beside every node start of a
 * chain (docs/decisions.md, "Fewer writes between two nodes"). The least recently written is closed past the limit.
 */
const OPEN_FILES = 16;

/**
 * Append-only JSON lines, one file per key: what grows with history (run events, messages)
 * costs one small append per entry instead of a rewrite. Appends of one key are serialized so
 * lines never interleave.
 */
export function openJsonlLog<T>(pathOf: (key: string) => string, logger: Logger): AppendLog<T> & { close(): Promise<void> } {
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

  // Group commit: lines queued while a write of their key is in flight go out together in the
  // next single append. Under a burst of events this turns thousands of open-write-close cycles
  // into a few, which is most of an SSE client's delivery latency.
  const pending = new Map<string, { lines: string[]; waiters: Array<{ resolve(): void; reject(error: unknown): void }> }>();
  const writing = new Map<string, Promise<void>>();
  // Open for appending, most recently written last (see OPEN_FILES).
  const handles = new Map<string, FileHandle>();
  // After `close`: a late append still lands, through a file closed again at once.
  let closed = false;

  const closeHandle = async (key: string) => {
    const handle = handles.get(key);
    if (!handle) return;
    handles.delete(key);
    await handle.close().catch(() => {});
  };

  /** Past the limit, the least recently written files no drain is using are closed. */
  const trim = () => {
    for (const oldest of handles.keys()) {
      if (handles.size <= OPEN_FILES) break;
      if (!writing.has(oldest)) void closeHandle(oldest);
    }
  };

  /** The key's file, open for appending, kept as the most recently written. */
  const handleOf = async (key: string, path: string): Promise<FileHandle> => {
    let handle = handles.get(key);
    if (handle) handles.delete(key);
    else handle = await open(path, 'a');
    handles.set(key, handle);
    return handle;
  };

  const drain = async (key: string): Promise<void> => {
    const path = pathOf(key);
    for (;;) {
      const batch = pending.get(key);
      if (!batch) {
        // After the log's close, the file goes before the drain does (then the queue is looked at again).
        if (closed && handles.has(key)) {
          await closeHandle(key);
          continue;
        }
        writing.delete(key);
        trim();
        return;
      }
      pending.delete(key);
      try {
        if (!checked.has(key)) {
          await mkdir(dirname(path), { recursive: true });
          await repairTail(path);
          checked.add(key);
        }
        await (await handleOf(key, path)).appendFile(batch.lines.join(''));
        for (const waiter of batch.waiters) waiter.resolve();
      } catch (error) {
        // A file that failed a write is opened again for the next one.
        await closeHandle(key);
        for (const waiter of batch.waiters) waiter.reject(error);
      }
    }
  };

  return {
    append(key, entry) {
      const line = `${JSON.stringify(entry)}\n`;
      return new Promise<void>((resolve, reject) => {
        const batch = pending.get(key);
        if (batch) {
          batch.lines.push(line);
          batch.waiters.push({ resolve, reject });
        } else {
          pending.set(key, { lines: [line], waiters: [{ resolve, reject }] });
        }
        if (!writing.has(key)) writing.set(key, drain(key));
      });
    },
    async read(key) {
      await writing.get(key);
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
    // Logs split in parts (a conversation's message chunks) are listed without reading any.
    async keys(prefix) {
      const dir = dirname(pathOf(`${prefix}/_`));
      let names: string[];
      try {
        names = await readdir(dir);
      } catch {
        return [];
      }
      return names
        .filter((file) => file.endsWith('.jsonl'))
        .map((file) => `${prefix}/${file.slice(0, -'.jsonl'.length)}`)
        .sort();
    },
    async remove(key) {
      // In the key's turn, as a drain is: appends asked meanwhile wait, then go to a new file.
      for (let current = writing.get(key); current; current = writing.get(key)) await current;
      let removed!: () => void;
      writing.set(key, new Promise<void>((resolve) => (removed = resolve)));
      try {
        checked.delete(key);
        await closeHandle(key);
        await rm(pathOf(key), { force: true });
      } finally {
        writing.delete(key);
        removed();
        if (pending.has(key)) writing.set(key, drain(key));
      }
    },
    /** Waits for the appends asked so far, then closes the files kept open. */
    async close() {
      closed = true;
      await Promise.allSettled([...writing.values()]);
      await Promise.all([...handles.keys()].map(closeHandle));
    },
  };
}
