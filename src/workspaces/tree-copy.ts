/**
 * Copying a directory tree for the setup cache (setup-cache.ts): by copy-on-write clone where the
 * filesystem supports it (`FICLONE`: btrfs, XFS with reflink, bcachefs; APFS through `cp -c`), else
 * byte by byte — never a symlink or a hardlink to the source, so a run that changes its copy never
 * changes the cache or another run's. Symlinks inside the tree are copied as symlinks, not followed.
 */

import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { chmod, copyFile, cp, lstat, mkdir, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export async function pathExists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Refuses a path under `root` that passes through a symlink on the way (a folder of the repository
 * committed as a link to `~`): copying from it would take the user's files into the cache, and
 * removing what is there before a restore would remove theirs. The path itself may be a symlink:
 * it is copied and removed as a link, never followed.
 */
export async function assertPlainWay(root: string, path: string): Promise<void> {
  const parts = path.split(/[\\/]/).filter(Boolean);
  let at = root;
  for (const part of parts.slice(0, -1)) {
    at = join(at, part);
    const info = await lstat(at).catch(() => null);
    if (!info) return; // made by the copy, as a plain folder
    if (info.isSymbolicLink()) throw new Error(`${path} passes through a symlink (${part}): not cached or restored`);
    if (!info.isDirectory()) throw new Error(`${path} passes through a file (${part})`);
  }
}

/** A copy running longer is stopped (a hung network filesystem): the setup then runs as on a miss. */
const COPY_TIMEOUT_MS = 15 * 60 * 1000;

/** Whether files can be cloned on the filesystem of `dir`, by device (probed once per device). */
const cloning = new Map<number, Promise<boolean>>();

async function clones(dir: string): Promise<boolean> {
  const device = (await lstat(dir)).dev;
  let known = cloning.get(device);
  if (!known) {
    known = (async () => {
      const probe = join(dir, `.svc-clone-probe-${process.pid}`);
      try {
        await writeFile(probe, 'x');
        await copyFile(probe, `${probe}.2`, constants.COPYFILE_FICLONE_FORCE);
        return true;
      } catch {
        return false;
      } finally {
        await rm(probe, { force: true });
        await rm(`${probe}.2`, { force: true });
      }
    })();
    cloning.set(device, known);
  }
  return known;
}

/**
 * Copies `source` (a directory, file or symlink) to `target`, which must not exist; its parent is
 * made. `cloned`: the filesystem cloned the files rather than copying their bytes.
 */
export async function copyTree(source: string, target: string): Promise<{ cloned: boolean }> {
  await mkdir(dirname(target), { recursive: true });
  const cloned = await clones(dirname(target));
  if (process.platform === 'linux') {
    const info = await lstat(source);
    const entries = info.isDirectory() ? await entryNames(source) : [];
    const lanes = entries === null ? 1 : Math.min(MAX_LANES, availableParallelism(), Math.floor(entries.length / MIN_ENTRIES_PER_LANE));
    if (lanes < 2 || entries === null) {
      await gnuCopy([source], target);
    } else {
      // The folder made first, its entries dealt out to a cp each, its mode and times set last (each
      // entry copied in changed them): what one `cp -a` of it would leave.
      await mkdir(target);
      // Every lane ends before a failure is told: the caller removes the target, which no cp may still write.
      const copied = await Promise.allSettled(
        Array.from({ length: lanes }, async (_, lane) => {
          const paths = entries.filter((_, index) => index % lanes === lane).map((name) => join(source, name));
          for (const batch of byArgumentBytes(paths)) await gnuCopy(batch, target, true);
        }),
      );
      const failed = copied.find((lane): lane is PromiseRejectedResult => lane.status === 'rejected');
      if (failed) throw failed.reason;
      await chmod(target, info.mode & 0o7777);
      await utimes(target, info.atime, info.mtime);
    }
  } else {
    await cp(source, target, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true, mode: constants.COPYFILE_FICLONE });
  }
  return { cloned };
}

/**
 * A folder of many entries (a node_modules' packages) is copied by up to this many cp processes at
 * once: a copy of many small files waits on the filesystem per file, not on the disk's bandwidth, so
 * two cores copy it in about half the time.
 */
const MAX_LANES = 4;
const MIN_ENTRIES_PER_LANE = 8;
/** At most this many bytes of paths on one cp's command line: far below the kernel's limit on arguments (2 MiB with the environment). */
const ARGUMENT_BYTES = 128 * 1024;

/**
 * The names in `dir`, or null when one is not UTF-8 (a Latin-1 file name in a package's test data):
 * readdir's strings would name another file. Such a folder goes to one cp, which copies names as
 * bytes.
 */
async function entryNames(dir: string): Promise<string[] | null> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    return (await readdir(dir, { encoding: 'buffer' })).map((name) => decoder.decode(name));
  } catch (error) {
    if (error instanceof TypeError) return null;
    throw error;
  }
}

/** `paths` in runs that each fit one command line. */
function byArgumentBytes(paths: string[]): string[][] {
  const batches: string[][] = [];
  let batch: string[] = [];
  let bytes = 0;
  for (const path of paths) {
    const size = Buffer.byteLength(path) + 1;
    if (batch.length > 0 && bytes + size > ARGUMENT_BYTES) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(path);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * GNU cp clones with --reflink=auto where it can and copies where it cannot: one process for many
 * files, far faster than a copy per file from JavaScript for a 10,000-file node_modules. `into`:
 * the sources are copied into `target` (`-t`), which exists; else the one source becomes `target`.
 */
async function gnuCopy(sources: string[], target: string, into = false): Promise<void> {
  const args = into ? ['-a', '--reflink=auto', '-t', target, '--', ...sources] : ['-a', '--reflink=auto', '--', ...sources, target];
  await run('cp', args, { maxBuffer: 1024 * 1024, timeout: COPY_TIMEOUT_MS }).catch((error: Error & { stderr?: string; killed?: boolean }) => {
    // cp names each file it could not copy: the first lines say why, not thousands of them.
    const said = (error.stderr ?? error.message).split('\n').slice(0, 3).join('; ').slice(0, 500);
    throw new Error(error.killed ? `copying took longer than ${COPY_TIMEOUT_MS / 60_000} minutes and was stopped` : `cp failed: ${said}`);
  });
}

/** The apparent size in bytes of every file under `path` (symlinks counted as themselves, not followed). */
export async function treeBytes(path: string): Promise<number> {
  const info = await lstat(path).catch(() => null);
  if (!info) return 0;
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const name of await readdir(path)) total += await treeBytes(join(path, name));
  return total;
}
