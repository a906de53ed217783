import { open } from 'node:fs/promises';

/**
 * The most one read of a node's log answers (`GET …/nodes/{nodeId}/log`): a page, so that a log at
 * its 32 MiB limit is read in pieces instead of one 32 MiB answer held in memory, and a follower
 * asks only for what came since its last page.
 */
export const LOG_PAGE_BYTES = 1024 * 1024;

export interface NodeLogPage {
  /** The log's text from `offset`, whole UTF-8 characters only. */
  text: string;
  offset: number;
  /** Where the next page starts: `offset` plus the bytes of `text`. */
  nextOffset: number;
  /** The log's size in bytes when it was read; it grows while its node runs. */
  size: number;
}

/**
 * A page of `<node>.log` from byte `offset`. A node that has printed nothing has no log yet: an
 * empty page. A page never ends inside a character: its last bytes, if they start one the page
 * cannot finish, are left for the next page (a log still being written may end mid-character).
 */
export async function readNodeLog(path: string, offset: number, limit = LOG_PAGE_BYTES): Promise<NodeLogPage> {
  let file;
  try {
    file = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { text: '', offset, nextOffset: offset, size: 0 };
    throw error;
  }
  try {
    const { size } = await file.stat();
    const length = Math.max(0, Math.min(limit, size - offset));
    const buffer = Buffer.alloc(length);
    const { bytesRead } = length ? await file.read(buffer, 0, length, offset) : { bytesRead: 0 };
    const whole = wholeCharacters(buffer.subarray(0, bytesRead));
    return { text: whole.toString('utf8'), offset, nextOffset: offset + whole.length, size };
  } finally {
    await file.close();
  }
}

/** The bytes up to the last character they hold whole. */
function wholeCharacters(bytes: Buffer): Buffer {
  // Walk back over at most 3 continuation bytes (10xxxxxx) to the lead byte of the last character.
  let start = bytes.length - 1;
  while (start >= 0 && start > bytes.length - 4 && (bytes[start]! & 0xc0) === 0x80) start--;
  if (start < 0) return bytes;
  const lead = bytes[start]!;
  const needs = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return bytes.length - start >= needs ? bytes : bytes.subarray(0, start);
}
