import { writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { OUTPUT_CAP_BYTES } from '../model/node-state.js';

/**
 * Writes a node's whole output, `<node>.out`, which must be on disk before anything after the node
 * starts (a later script may read it). An output no longer than the record's cap — nearly all of
 * them — is written synchronously: three page-cache system calls (~30 µs) instead of three
 * thread-pool round trips (open, write, close: ~0.3–0.6 ms on a busy 2-core machine) between one
 * node's end and the next one's start (docs/decisions.md, "Engine overhead"). A larger one goes
 * through the thread pool, so a big output never holds the event loop.
 */
export async function writeOutputFile(path: string, output: string): Promise<void> {
  // Characters, not bytes: a UTF-8 byte count would cost a pass over the text; at most 3× the cap.
  if (output.length <= OUTPUT_CAP_BYTES) writeFileSync(path, output);
  else await writeFile(path, output);
}
