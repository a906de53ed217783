/**
 * Keeps the webhook triggers of the server's own directory and workspaces registered (issue 32;
 * docs/decisions.md, "Webhooks"): a workflow file saved in a watched `.svc/workflows/` is
 * registered within a second — an `fs.watch` on each workflow directory, debounced, starts a
 * registering pass — where a poll every 15 s made a new trigger answer 404 meanwhile.
 *
 * A directory that does not exist yet is watched through its nearest existing parent up to the
 * project root (a first workflow creates `.svc/workflows/`), and the set of watched directories is
 * made again after every pass (workspaces come and go). fs.watch is not everywhere reliable (some
 * network and container file systems send nothing; inotify watches can run out), so a slow pass
 * every `fallbackMs` still runs: it registers what the watches missed, and the workspaces another
 * server registered on a shared database.
 */

import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Logger } from '../shared/logger.js';
import { PROJECT_WORKFLOWS_DIR } from './bundled.js';

export interface TriggerWatchOptions {
  /** The project roots whose `.svc/workflows/` hold triggers to keep registered: the server's directory and the workspaces'. */
  roots(): Promise<string[]>;
  /** A registering pass over those roots (its failure is logged here, and the next change or fallback tries again). */
  register(): Promise<unknown>;
  /** A file in a watched workflow directory changed: its parsed copy must be read again. */
  changed(path: string): void;
  /** Changes this close together make one pass: an editor's save is several events. */
  debounceMs: number;
  /** The pass that runs whatever the watches saw. */
  fallbackMs: number;
  logger?: Logger;
}

const isDirectory = (path: string) =>
  stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );

/** What to watch for `root`: its workflow directory, or the nearest existing directory on the way to it. */
async function watchedDirOf(root: string): Promise<string | undefined> {
  const target = join(root, PROJECT_WORKFLOWS_DIR);
  for (let dir = target; ; dir = dirname(dir)) {
    if (await isDirectory(dir)) return dir;
    if (dir === root || dirname(dir) === dir) return undefined;
  }
}

export class TriggerWatch {
  readonly #watchers = new Map<string, FSWatcher>();
  #debounce: NodeJS.Timeout | undefined;
  #fallback: NodeJS.Timeout | undefined;
  /** The pass running now; a change meanwhile asks for one more after it (`#again`). */
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;

  constructor(private readonly options: TriggerWatchOptions) {}

  /** Watches the roots now; the first registering pass is the caller's (the server's start awaits it). */
  async start(): Promise<void> {
    await this.#rewatch();
    this.#scheduleFallback();
  }

  /** A pass soon (a change seen, a workspace registered): debounced. */
  poke(): void {
    if (this.#stopped) return;
    clearTimeout(this.#debounce);
    this.#debounce = setTimeout(() => void this.#pass(), this.options.debounceMs).unref();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#debounce);
    clearTimeout(this.#fallback);
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }

  /** One pass at a time: a change during one makes exactly one more. */
  #pass(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        await this.options.register().catch((error: Error) => this.options.logger?.warn('workflows.discovery_failed', { error: error.message }));
        await this.#rewatch().catch((error: Error) => this.options.logger?.warn('workflows.watch_failed', { error: error.message }));
      } while (this.#again && !this.#stopped);
    })().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  #scheduleFallback(): void {
    if (this.#stopped) return;
    this.#fallback = setTimeout(() => {
      void this.#pass().finally(() => this.#scheduleFallback());
    }, this.options.fallbackMs).unref();
  }

  /** Watches what each root now has, and stops watching what no root needs any more. */
  async #rewatch(): Promise<void> {
    const wanted = new Set<string>();
    for (const root of await this.options.roots()) {
      const dir = await watchedDirOf(root);
      if (dir !== undefined) wanted.add(dir);
    }
    if (this.#stopped) return;
    for (const [dir, watcher] of this.#watchers) {
      if (wanted.has(dir)) continue;
      watcher.close();
      this.#watchers.delete(dir);
    }
    for (const dir of wanted) if (!this.#watchers.has(dir)) this.#watch(dir);
  }

  #watch(dir: string): void {
    try {
      const watcher = watch(dir, { persistent: false }, (_event, name) => {
        if (name) this.options.changed(join(dir, name.toString()));
        this.poke();
      });
      // The directory removed, or the watch lost: drop it; the next pass watches what is there then.
      watcher.on('error', () => {
        watcher.close();
        if (this.#watchers.get(dir) === watcher) this.#watchers.delete(dir);
        this.poke();
      });
      this.#watchers.set(dir, watcher);
    } catch (error) {
      // Out of inotify watches, or a file system without them: the fallback pass still registers.
      this.options.logger?.warn('workflows.watch_failed', { dir, error: (error as Error).message });
    }
  }
}
