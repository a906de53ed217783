/**
 * A workspace's pool of prepared worktrees on disk (docs/decisions.md, "Setup cache and pool"):
 * `<home>/workspaces/<id>/pool/<name>/` is a git worktree, detached at the commit it was prepared
 * at, and `<name>.json` beside it is its manifest — written atomically, last, once its setup is done
 * (or restored). A worktree without its manifest is not ready and is never taken: it is one being
 * prepared, or what a crash left, which the next server start removes (`sweep`).
 *
 * `<name>.owner` says which server prepares it (and its setup's process), so that a start sweeps only
 * what a server that is gone left.
 *
 * The state is these files, not a store record: a pool worktree is this machine's files, and a
 * record elsewhere could name one that a `kill -9` left half-prepared (the cache keeps its entries
 * the same way). Taking one is an atomic rename of its manifest (`claim`): of a take, a clean-up
 * and the pool's own trimming, only one ever gets it.
 */

import { randomUUID } from 'node:crypto';
import { readdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import * as z from 'zod';
import { killOrphanGroup, processStartTime } from '../processes/index.js';
import { writeFileAtomic } from '../shared/atomic-file.js';
import { runGit } from './git.js';
import { isDirectory } from './local-repository.js';
import { isInside, type WorktreeGit } from './worktrees.js';

export const PoolManifestSchema = z.object({
  name: z.string().regex(/^pool-[0-9a-f]{8}$/),
  repository: z.string().describe('the repository it is a worktree of'),
  commit: z.string().regex(/^[0-9a-f]{40,64}$/),
  preparedAt: z.string(),
  preparedBy: z.enum(['setup', 'cache', 'none']).describe('its setup script ran, the setup cache restored it, or there is no setup'),
  durationMs: z.number().nonnegative(),
  cacheKey: z.string().nullable().describe('the setup cache key it was prepared under (`cache:`); a run on another commit of the same key may take it'),
  cachePaths: z.array(z.string()).describe("`cache:`'s paths: what it keeps when it is checked out at another commit"),
  clean: z.boolean().describe('its setup left nothing .gitignore does not hide: a run taking it at its commit has nothing to commit for the setup'),
});
export type PoolManifest = z.infer<typeof PoolManifestSchema>;

const ProcessNoteSchema = z.object({ pid: z.number().int().positive(), startTime: z.number().nullable() });
const OwnerNoteSchema = z.object({ owner: ProcessNoteSchema, setup: ProcessNoteSchema.nullable() });
type OwnerNote = z.infer<typeof OwnerNoteSchema>;

/** Whether the noted process still runs: the same pid with the same start time (where /proc tells it; else the pid alone). */
function isRunning(noted: z.infer<typeof ProcessNoteSchema>): boolean {
  if (noted.startTime !== null) return processStartTime(noted.pid) === noted.startTime;
  try {
    process.kill(noted.pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `<home>/workspaces/<id>/pool`. */
export function poolDir(home: string, workspaceId: string): string {
  return join(home, 'workspaces', workspaceId, 'pool');
}

export const newPoolName = () => `pool-${randomUUID().replaceAll('-', '').slice(0, 8)}`;

export class PoolDirectory {
  constructor(
    /** `<home>/workspaces/<id>/pool` */
    readonly dir: string,
    private readonly git: WorktreeGit,
  ) {}

  pathOf(name: string): string {
    return join(this.dir, name);
  }

  /** The worktrees ready to be taken (a manifest, and its worktree present), newest first. */
  async ready(): Promise<PoolManifest[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const ready: PoolManifest[] = [];
    for (const file of names.filter((name) => name.endsWith('.json'))) {
      const manifest = await this.#manifest(join(this.dir, file));
      if (manifest && `${manifest.name}.json` === file && (await isDirectory(this.pathOf(manifest.name)))) ready.push(manifest);
    }
    return ready.sort((a, b) => b.preparedAt.localeCompare(a.preparedAt));
  }

  /** The names of worktree folders with no manifest that reads (being prepared, left by a crash, or edited by hand). */
  async unready(): Promise<string[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const unready: string[] = [];
    for (const name of names.filter((entry) => /^pool-[0-9a-f]{8}$/.test(entry))) {
      if ((await this.#manifest(join(this.dir, `${name}.json`)))?.name !== name) unready.push(name);
    }
    return unready;
  }

  /** Marks a prepared worktree ready: its manifest, written whole or not at all, and last. */
  async publish(manifest: PoolManifest): Promise<void> {
    await writeFileAtomic(join(this.dir, `${manifest.name}.json`), JSON.stringify(manifest), { sync: false });
  }

  /**
   * Takes the worktree out of the pool: its manifest renamed aside, atomically, so that no one else
   * can take it too. The manifest, or null when another took it first (or it is no whole one).
   */
  async claim(name: string): Promise<PoolManifest | null> {
    const claimed = join(this.dir, `${name}.claimed-${randomUUID()}`);
    if (
      !(await rename(join(this.dir, `${name}.json`), claimed).then(
        () => true,
        () => false,
      ))
    )
      return null;
    const manifest = await this.#manifest(claimed);
    await rm(claimed, { force: true });
    return manifest?.name === name ? manifest : null;
  }

  /**
   * Notes who prepares `name` — this server, and once it runs the setup's process group — before
   * its worktree exists: several servers may share a home, and a start sweeps only the worktrees
   * whose server is gone; a crash leaves the setup running, which the sweep then stops.
   */
  async noteOwner(name: string, setupPid?: number): Promise<void> {
    const setup = setupPid === undefined ? null : { pid: setupPid, startTime: processStartTime(setupPid) };
    const note: OwnerNote = { owner: { pid: process.pid, startTime: processStartTime(process.pid) }, setup };
    await writeFileAtomic(join(this.dir, `${name}.owner`), JSON.stringify(note), { sync: false });
  }

  /** Removes a worktree of the pool (taken out of it first, or never ready), its registration in `repository` and its notes. */
  async remove(name: string, repository: string | null): Promise<void> {
    const path = this.pathOf(name);
    if (repository) await runGit(['worktree', 'remove', '--force', '--force', '--', path], { cwd: repository, ...this.git }).catch(() => undefined);
    await rm(path, { recursive: true, force: true });
    for (const note of [`${name}.json`, `${name}.owner`]) await rm(join(this.dir, note), { force: true });
  }

  /**
   * What a stopped or killed server left: worktrees with no manifest whose server is gone are
   * removed, the setup still running in one stopped first, stray files deleted, and the
   * registrations in `repository` of pool worktrees whose folder is gone dropped (the pool's own
   * only: `git worktree prune` would also drop the user's own stale entries). A worktree another
   * live server of the same home is preparing is left alone. The names removed.
   */
  async sweep(repository: string | null): Promise<string[]> {
    const removed: string[] = [];
    for (const name of await this.unready()) {
      const note = await this.#owner(name);
      if (note && isRunning(note.owner)) continue;
      if (note?.setup?.startTime != null) killOrphanGroup(note.setup.pid, note.setup.startTime);
      await this.remove(name, repository);
      removed.push(name);
    }
    const names = await readdir(this.dir).catch(() => [] as string[]);
    for (const stray of names.filter((name) => name.includes('.claimed-') || (name.startsWith('.') && name.endsWith('.tmp')))) {
      await rm(join(this.dir, stray), { force: true });
    }
    // A note whose worktree was never made (a crash before `git worktree add`), unless its server still runs and is about to.
    for (const name of names.filter((file) => file.endsWith('.owner')).map((file) => file.slice(0, -'.owner'.length))) {
      const note = await this.#owner(name);
      if (!names.includes(name) && !(note && isRunning(note.owner))) await rm(join(this.dir, `${name}.owner`), { force: true });
    }
    if (repository) await this.#dropMissingRegistrations(repository);
    return removed;
  }

  async #owner(name: string): Promise<OwnerNote | null> {
    const text = await readFile(join(this.dir, `${name}.owner`), 'utf8').catch(() => null);
    try {
      const parsed = OwnerNoteSchema.safeParse(text === null ? null : JSON.parse(text));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  /** git's own notes of worktrees (`<common dir>/worktrees/*`) that point into this pool at a folder that is gone. */
  async #dropMissingRegistrations(repository: string): Promise<void> {
    const common = (await runGit(['rev-parse', '--git-common-dir'], { cwd: repository, ...this.git }).catch(() => '')).trim();
    if (!common) return;
    const admin = join(resolve(repository, common), 'worktrees');
    for (const entry of await readdir(admin).catch(() => [] as string[])) {
      const gitdir = (await readFile(join(admin, entry, 'gitdir'), 'utf8').catch(() => '')).trim();
      const worktree = gitdir ? dirname(gitdir) : '';
      if (worktree && isInside(worktree, this.dir) && !(await isDirectory(worktree))) await rm(join(admin, entry), { recursive: true, force: true });
    }
  }

  async #manifest(path: string): Promise<PoolManifest | null> {
    // The server's own file, but a home is a plain directory anyone may have edited: checked.
    const text = await readFile(path, 'utf8').catch(() => null);
    if (text === null) return null;
    try {
      const parsed = PoolManifestSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }
}
