/**
 * The setup cache (docs/decisions.md, "Setup cache and pool"): what a worktree's `setup:` produced — the
 * `cache.paths` of `.svc/worktree.yaml`, such as `node_modules` — kept in the server's home once a
 * setup succeeded, and restored into a later worktree whose key is the same instead of running the
 * setup again. The key is the workspace, the setup script, the platform, and the git blob ids of
 * the `cache.key` files (the lockfile) at the worktree's base commit.
 *
 * Each entry is a directory `<home>/workspaces/<id>/cache/<key>/` holding `tree/` (the paths) and
 * `manifest.json` (what it holds, its size, hits and last use). The manifest lives beside the files
 * it describes, not in the store: an entry is this machine's files, and a record elsewhere could say
 * an entry exists that a crash left half-copied. Entries are made in a `.tmp-*` directory and
 * renamed into place whole, so a reader never sees a half-made one; restoring copies (a clone where
 * the filesystem can, `tree-copy.ts`), never links, so no run can change another's files.
 */

import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '../shared/atomic-file.js';
import { runGit } from './git.js';
import { assertPlainWay, copyTree, pathExists, treeBytes } from './tree-copy.js';

/** A store's scratch directory this old was left by a crash: no store copies for an hour. */
const STALE_MS = 60 * 60 * 1000;

/** `SVC_CACHE_MAX_BYTES` when unset: the cache of all workspaces of a home, past which the least recently used entries go. */
export const DEFAULT_CACHE_MAX_BYTES = 10 * 1024 ** 3;

export const CacheEntrySchema = z.object({
  key: z.string().describe("the key's hash: the workspace, setup script, platform and the key files' contents"),
  paths: z.array(z.string()).describe('the cached paths, relative to the worktree'),
  sizeBytes: z.number().int().nonnegative().describe('their apparent size'),
  hits: z.number().int().nonnegative().describe('worktrees that took it instead of running the setup'),
  createdAt: z.string(),
  lastUsedAt: z.string(),
  cloned: z.boolean().describe('true when the filesystem cloned the files (copy-on-write) rather than copying their bytes'),
});
export type CacheEntry = z.infer<typeof CacheEntrySchema>;

/** What decides whether a worktree can take an entry: its configuration and the worktree's key files. */
export interface CacheRequest {
  workspaceId: string;
  worktree: string;
  script: string;
  keyFiles: readonly string[];
  paths: readonly string[];
}

/** The entry's key: the workspace, the script, the platform, and the key files' blob ids at the worktree's HEAD. */
export async function cacheKey(request: CacheRequest, env: NodeJS.ProcessEnv): Promise<string> {
  // `:(glob)` pathspecs: `**/package-lock.json` as a shell would mean it; blob ids are the files' content hashes.
  const listed = request.keyFiles.length ? await runGit(['ls-files', '-s', '-z', '--', ...globs(request.keyFiles)], { cwd: request.worktree, env }) : '';
  const files = listed
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const [meta, path] = line.split('\t');
      return `${path} ${meta!.split(' ')[1]}`;
    });
  return keyOf(request, files);
}

/**
 * The key a worktree at `commit` of `repository` would have, from git's objects alone (no checkout):
 * the key files listed as a diff from the empty tree, which takes the same `:(glob)` pathspecs as
 * `ls-files` (`ls-tree` takes none) and names each file's blob. A worktree pool compares it with the
 * key its worktree was prepared under (worktree-pool.ts).
 */
export async function cacheKeyAt(request: Omit<CacheRequest, 'worktree'>, repository: string, commit: string, env: NodeJS.ProcessEnv): Promise<string> {
  const options = { cwd: repository, env };
  const empty = (await runGit(['hash-object', '-t', 'tree', '/dev/null'], options)).trim();
  const listed = request.keyFiles.length
    ? await runGit(['diff-tree', '-r', '-z', '--no-renames', empty, commit, '--', ...globs(request.keyFiles)], options)
    : '';
  // `-z` lines: `:000000 <mode> <zeros> <blob> A`, then the path.
  const fields = listed.split('\0').filter(Boolean);
  const files: string[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) files.push(`${fields[i + 1]} ${fields[i]!.split(' ')[3]}`);
  return keyOf(request, files);
}

const globs = (patterns: readonly string[]) => patterns.map((pattern) => `:(glob)${pattern}`);

function keyOf(request: Omit<CacheRequest, 'worktree'>, files: string[]): string {
  const material = JSON.stringify({
    workspace: request.workspaceId,
    script: request.script,
    paths: [...request.paths].sort(),
    platform: `${platform()}-${arch()}`,
    node: process.versions.node,
    files: files.sort(),
  });
  return createHash('sha256').update(material).digest('hex').slice(0, 32);
}

/** One workspace's cache directory in this server's home. */
export class SetupCache {
  constructor(
    /** `<home>/workspaces/<id>/cache` */
    private readonly dir: string,
    private readonly now: () => string = () => new Date().toISOString(),
  ) {}

  /** The entries, most recently used first. */
  async entries(): Promise<CacheEntry[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const entries: CacheEntry[] = [];
    for (const name of names) {
      if (name.startsWith('.')) continue;
      const manifest = await this.#manifest(name);
      if (manifest) entries.push(manifest);
    }
    return entries.sort((a, b) => b.lastUsedAt.localeCompare(a.lastUsedAt));
  }

  /**
   * Copies the entry's paths into the worktree; false when there is no whole entry for `key` (or
   * it went while being copied: the caller runs the setup instead, as on a miss).
   */
  async restore(key: string, worktree: string): Promise<CacheEntry | null> {
    const manifest = await this.#manifest(key);
    if (!manifest) return null;
    try {
      for (const path of manifest.paths) await assertPlainWay(worktree, path);
      for (const path of manifest.paths) {
        // Whatever the checkout has there (nothing, usually) gives way to the cached tree.
        await rm(join(worktree, path), { recursive: true, force: true });
        await copyTree(join(this.dir, key, 'tree', path), join(worktree, path));
      }
    } catch (error) {
      // Only what this restore may have copied is taken back: never through a symlink on the way.
      for (const path of manifest.paths) {
        if (
          await assertPlainWay(worktree, path).then(
            () => true,
            () => false,
          )
        )
          await rm(join(worktree, path), { recursive: true, force: true });
      }
      if ((error as Error).message.includes('passes through')) throw error;
      return null;
    }
    const used = { ...manifest, hits: manifest.hits + 1, lastUsedAt: this.now() };
    // Hits and last use are told, not counted exactly: two restores at once may count one.
    await writeFileAtomic(join(this.dir, key, 'manifest.json'), JSON.stringify(used), { sync: false }).catch(() => {});
    return used;
  }

  /** Keeps what the setup made in `worktree` under `key` (the entry already kept for it, if any); the paths it did not make are left out. Null when it made none. */
  async store(key: string, worktree: string, paths: readonly string[]): Promise<CacheEntry | null> {
    for (const path of paths) await assertPlainWay(worktree, path);
    // Another worktree of the same key stored it meanwhile (or its restore failed): it is as good.
    const existing = await this.#manifest(key);
    if (existing) return existing;
    await this.sweep(STALE_MS);
    const tmp = join(this.dir, `.tmp-${randomUUID()}`);
    try {
      const kept: string[] = [];
      let cloned = true;
      for (const path of paths) {
        if (!(await pathExists(join(worktree, path)))) continue;
        cloned = (await copyTree(join(worktree, path), join(tmp, 'tree', path))).cloned && cloned;
        kept.push(path);
      }
      if (kept.length === 0) return null;
      const at = this.now();
      const entry: CacheEntry = { key, paths: kept, sizeBytes: await treeBytes(join(tmp, 'tree')), hits: 0, createdAt: at, lastUsedAt: at, cloned };
      await writeFileAtomic(join(tmp, 'manifest.json'), JSON.stringify(entry), { sync: false });
      const place = () => rename(tmp, join(this.dir, key));
      await place().catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
        // Another store of the same key won the rename: its entry is as good. What is there
        // without being a whole entry (a manifest rewritten as its entry was removed) goes.
        if (await this.#manifest(key)) return;
        await this.remove(key);
        await place();
      });
      return entry;
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }

  /** Removes one entry (renamed aside first, so a restore never copies from a half-removed one). */
  async remove(key: string): Promise<void> {
    const aside = join(this.dir, `.trash-${randomUUID()}`);
    if (
      await rename(join(this.dir, key), aside).then(
        () => true,
        () => false,
      )
    )
      await rm(aside, { recursive: true, force: true });
  }

  /** Removes every entry, and what a crash left half-made; the bytes freed. */
  async clear(): Promise<{ removed: number; freedBytes: number }> {
    const entries = await this.entries();
    for (const entry of entries) await this.remove(entry.key);
    await this.sweep(0);
    return { removed: entries.length, freedBytes: entries.reduce((sum, entry) => sum + entry.sizeBytes, 0) };
  }

  /** What a store or removal stopped by a crash left behind (`.tmp-*`, `.trash-*`), untouched for `olderThanMs`. */
  async sweep(olderThanMs: number): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    for (const name of await readdir(this.dir)) {
      if (!name.startsWith('.tmp-') && !name.startsWith('.trash-')) continue;
      const path = join(this.dir, name);
      const info = await stat(path).catch(() => null);
      if (info && Date.now() - info.mtimeMs >= olderThanMs) await rm(path, { recursive: true, force: true });
    }
  }

  async #manifest(key: string): Promise<CacheEntry | null> {
    if (!/^[0-9a-f]{32}$/.test(key)) return null;
    // A manifest is the server's own file, but a home is a plain directory anyone may have edited: checked.
    const text = await readFile(join(this.dir, key, 'manifest.json'), 'utf8').catch(() => null);
    let json: unknown;
    try {
      json = text === null ? null : JSON.parse(text);
    } catch {
      return null;
    }
    const parsed = CacheEntrySchema.safeParse(json);
    // A manifest without its tree is no entry (a hit counted as the entry was being removed).
    if (!(await pathExists(join(this.dir, key, 'tree')))) return null;
    return parsed.success && parsed.data.key === key ? parsed.data : null;
  }
}

/** The setup cache of every workspace in a home: `<home>/workspaces/<id>/cache`. */
export function workspaceCacheDir(home: string, workspaceId: string): string {
  return join(home, 'workspaces', workspaceId, 'cache');
}

/**
 * Trims the caches of every workspace of `home` to `maxBytes` in all, least recently used entries
 * first (`SVC_CACHE_MAX_BYTES`). An entry larger than the limit alone is removed too: keeping it
 * would leave every later store over the limit.
 */
export async function evictSetupCaches(home: string, maxBytes: number): Promise<string[]> {
  const workspaces = await readdir(join(home, 'workspaces')).catch(() => [] as string[]);
  const all: Array<{ cache: SetupCache; entry: CacheEntry }> = [];
  for (const id of workspaces) {
    const cache = new SetupCache(workspaceCacheDir(home, id));
    for (const entry of await cache.entries()) all.push({ cache, entry });
  }
  // Most recently used first: what stays is the longest prefix that fits.
  all.sort((a, b) => b.entry.lastUsedAt.localeCompare(a.entry.lastUsedAt));
  let kept = 0;
  const removed: string[] = [];
  for (const { cache, entry } of all) {
    if (kept + entry.sizeBytes <= maxBytes) {
      kept += entry.sizeBytes;
      continue;
    }
    await cache.remove(entry.key);
    removed.push(entry.key);
  }
  return removed;
}
