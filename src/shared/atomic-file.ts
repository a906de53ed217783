import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Writes a file so that a crash at any instant leaves either the old or the new content:
 * a uniquely named temp file in the same folder, fsync, then rename over the target. With
 * `sync: false` the fsync is left out: still atomic, and it survives a crash of this process,
 * but a power loss may bring back the previous content (an fsync costs ~4 ms on a VM disk).
 */
export async function writeFileAtomic(path: string, content: string, { sync = true }: { sync?: boolean } = {}): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await open(tmp, 'w');
  try {
    await handle.writeFile(content);
    if (sync) await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(tmp, path);
  } catch (error) {
    await unlink(tmp).catch(() => {});
    throw error;
  }
}
