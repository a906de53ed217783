/**
 * Reading a text file svc did not write — a workflow, a command, a dotenv file — from a folder
 * anyone may have put anything in. Only a regular file is read (a symlink to one is fine), and only
 * up to a cap: a name that leads to a FIFO would hold a libuv thread until some writer came (four of
 * them stall every file operation of the server), and one that leads to `/dev/zero` would be read
 * until memory ran out.
 */

import { constants, type Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';

/** A file refused unread: not a regular file, or larger than the cap. Its message says which. */
export class RefusedFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedFileError';
  }
}

function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  if (info.isDirectory()) return 'a directory';
  return 'not a file';
}

function refusal(info: Stats, maxBytes: number): RefusedFileError | undefined {
  if (!info.isFile()) return new RefusedFileError(`not a regular file (${kindOf(info)})`);
  if (info.size > maxBytes) return new RefusedFileError(`the file is ${info.size} bytes, over the limit of ${maxBytes}`);
  return undefined;
}

/**
 * The UTF-8 text of the regular file at `path`, of at most `maxBytes`. Anything else is a
 * `RefusedFileError`; a missing file is Node's own `ENOENT`, as from `readFile`.
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<string> {
  // Checked before opening, so a device is never opened at all (opening some has effects) ...
  const before = refusal(await stat(path), maxBytes);
  if (before) throw before;
  // ... and again on the open descriptor, so nothing swapped in between is read. O_NONBLOCK: if a
  // FIFO was swapped in, the open returns at once instead of waiting for a writer.
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    const after = refusal(info, maxBytes);
    if (after) throw after;
    // At most the size checked is read, whatever the file grows to meanwhile.
    const buffer = Buffer.alloc(info.size);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled).toString('utf8');
  } finally {
    await handle.close();
  }
}
