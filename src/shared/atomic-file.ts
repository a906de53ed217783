import { mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Writes a file so that a crash at any instant leaves either the old or the new content:
 * a uniquely named temp file in the same folder, fsync, then rename over the target. With
 * `sync: false` the fsync is left out: still atomic, and it survives a crash of this process,
 * but a power loss may bring back the previous content (an fsync costs ~4 ms on a VM disk).
 */
export async function writeFileAtomic(path: string, content: string, { sync = true }: { sync?: boolean } = {}): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await openCreatingFolder(tmp);
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

/**
 * Opens `file` for writing, making its folder only when it is missing: the folder nearly always
 * exists (a run's record is rewritten once per node of a chain), and a `mkdir` first on every
 * write was one more file-system round trip each time (docs/decisions.md, "Fewer writes between two nodes").
 */
async function openCreatingFolder(file: string): Promise<FileHandle> {
  try {
    return await open(file, 'w');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(dirname(file), { recursive: true });
    return open(file, 'w');
  }
}
