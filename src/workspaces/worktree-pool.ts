/**
 * The pool of prepared worktrees (docs/decisions.md, "Setup cache and pool"): for each workspace
 * whose `.svc/worktree.yaml` at the default branch's tip says `pool: N`, the server keeps N
 * worktrees ready at that tip — made detached there, their setup run (or restored from the setup
 * cache, and stored into it when it ran), nothing of a run in them yet (no copies, no `$SVC_PORT`:
 * those come when a run takes one, pool-take.ts). The files are the state (pool-directory.ts).
 *
 * Refilling is background work no run waits for: one worktree at a time for the whole server, only
 * while the memory budget has room and no node waits for it (and given back the moment one does),
 * its script under `nice`, never holding the workspace's lock while it prepares — a run placed
 * meanwhile takes what is ready or gets a worktree as without a pool. Only a server refills
 * (`start`); any process that places runs takes.
 */

import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_NODE_ESTIMATE_BYTES, watchTreeMemory, type MemoryAdmission, type MemoryGrant } from '../processes/index.js';
import { restoreOrRunSetup } from '../runs/index.js';
import { runGit } from './git.js';
import { isDirectory } from './local-repository.js';
import { newPoolName, poolDir, PoolDirectory, type PoolManifest } from './pool-directory.js';
import type { PoolView, WorkspaceRecord } from './records.js';
import type { WorkspaceCore } from './workspace-core.js';
import { readWorktreeConfig, readWorktreeConfigAt } from './worktree-config.js';
import { cacheHandle, cacheSetting } from './worktree-preparation.js';

/** How often the server looks at each workspace's default branch: a moved tip gets fresh worktrees, a new `pool:` is filled. */
export const POOL_CHECK_MS = 10_000;
/** A refill the memory budget had no room for (or that gave its place to a node) is tried again this much later. */
const RETRY_MS = 1_000;
/** A refill whose setup failed is not tried again at the same tip for this long: a broken setup would otherwise run in a loop. */
const FAILED_RETRY_MS = 10 * 60_000;
/** The lowest CPU priority: a refill's install must not slow the nodes running beside it. */
const NICENESS = 19;

interface Preparing {
  workspaceId: string;
  controller: AbortController;
  done: Promise<void>;
  worktree?: { name: string; commit: string; startedAt: string };
}

export class WorktreePool {
  readonly #waiting: string[] = [];
  #current: Preparing | undefined;
  #working = false;
  #refills = false;
  #closed = false;
  #busy: () => boolean = () => false;
  #timer: NodeJS.Timeout | undefined;
  #starting: Promise<void> | undefined;
  /** Emptied by a clean-up: not refilled until the next run on the workspace. */
  readonly #dormant = new Set<string>();
  /** Being deleted: never refilled again. */
  readonly #halted = new Set<string>();
  readonly #failures = new Map<string, { tip: string; at: number; message: string }>();
  readonly #retries = new Set<NodeJS.Timeout>();
  readonly #sizes = new Map<string, { repository: string; tip: string; size: number }>();

  constructor(
    private readonly core: WorkspaceCore,
    private readonly deps: { envValues(id: string): Promise<Record<string, string>>; memory?: MemoryAdmission | undefined },
  ) {}

  /** The workspace's pool directory in this home. */
  directory(id: string): PoolDirectory {
    return new PoolDirectory(poolDir(this.core.deps.home, id), this.core.git);
  }

  /**
   * The repository a workspace's runs are placed from on this server, when it is here: the
   * directory registered by path, or svc's clone (never cloned for the pool's sake).
   */
  async repositoryOf(record: WorkspaceRecord): Promise<string | null> {
    if (record.source === 'path' || record.url === undefined || this.core.deps.homes.homeId === undefined)
      return (await isDirectory(record.path)) ? record.path : null;
    const source = join(this.core.ownDir(record.id), 'source');
    return (await isDirectory(join(source, '.git'))) ? source : null;
  }

  /**
   * The server's part: what a stopped or killed server left half-prepared is removed (each
   * workspace's pool under its lock, so no run takes meanwhile), then every workspace is looked at,
   * and again every `checkMs`.
   */
  start({ checkMs = POOL_CHECK_MS }: { checkMs?: number } = {}): void {
    this.#refills = true;
    this.#starting = (async () => {
      for (const record of await this.#workspaces()) {
        if (this.#closed) return;
        const repository = await this.repositoryOf(record);
        const removed = await this.core.exclusive(record.id, () => this.directory(record.id).sweep(repository));
        if (removed.length) this.core.deps.logger.info('workspace.pool_swept', { workspaceId: record.id, unready: removed });
      }
      this.#checkAll();
    })().catch((error: unknown) => this.core.deps.logger.warn('workspace.pool_start_failed', { error: (error as Error).message }));
    // Unref'd: the pool never holds a process open.
    this.#timer = setInterval(() => this.#checkAll(), checkMs).unref();
  }

  /** Stops refilling: the worktree being prepared is stopped and removed (its setup's processes too). */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    for (const timer of this.#retries) clearTimeout(timer);
    this.#waiting.length = 0;
    this.#current?.controller.abort();
    await this.#starting;
    await this.#current?.done;
  }

  /** Looks at the workspace's pool soon (`demand`: a run on it was set up, which wakes one a clean-up emptied). */
  check(id: string, { demand = false }: { demand?: boolean } = {}): void {
    if (demand) this.#dormant.delete(id);
    if (!this.#refills || this.#closed || this.#halted.has(id) || this.#dormant.has(id)) return;
    // Again after the one being filled, if it is this one: it may have looked before the take that asks now.
    if (!this.#waiting.includes(id)) this.#waiting.push(id);
    void this.#work();
  }

  /** The workspace is being deleted: its refill stops, and none starts again. */
  async halt(id: string): Promise<void> {
    this.#halted.add(id);
    await this.#stop(id);
  }

  /**
   * `svc workspace cleanup`: every worktree of the workspace's pool removed, ready or not, and no
   * refill until the next run on the workspace. Call with the workspace's lock held.
   */
  async empty(id: string, repository: string | null): Promise<PoolManifest[]> {
    this.#dormant.add(id);
    await this.#stop(id);
    const pool = this.directory(id);
    const removed: PoolManifest[] = [];
    for (const manifest of await pool.ready()) {
      if (!(await pool.claim(manifest.name))) continue;
      await pool.remove(manifest.name, repository);
      removed.push(manifest);
    }
    await pool.sweep(repository);
    return removed;
  }

  /** `svc workspace show`: the pool's worktrees in this home — ready at the tip, stale (an older tip), or being prepared. */
  async view(record: WorkspaceRecord): Promise<PoolView> {
    const repository = await this.repositoryOf(record);
    const tip = repository && record.default_branch ? await tipOf(repository, record.default_branch, this.core).catch(() => null) : null;
    let size = 0;
    const failure = this.#failures.get(record.id);
    let error = failure && failure.tip === tip ? failure.message : null;
    if (repository && tip) size = await this.#sizeAt(record.id, repository, tip).catch((invalid: Error) => ((error = invalid.message), 0));
    const pool = this.directory(record.id);
    const worktrees: PoolView['worktrees'] = (await pool.ready()).map((manifest) => ({
      name: manifest.name,
      path: pool.pathOf(manifest.name),
      commit: manifest.commit,
      state: manifest.commit === tip ? 'ready' : 'stale',
      prepared_at: manifest.preparedAt,
      prepared_by: manifest.preparedBy,
    }));
    const preparing = this.#current?.workspaceId === record.id ? this.#current.worktree : undefined;
    if (preparing) {
      const { name, commit, startedAt } = preparing;
      worktrees.push({ name, path: pool.pathOf(name), commit, state: 'preparing', prepared_at: null, prepared_by: null, started_at: startedAt });
    }
    return { size, worktrees, error };
  }

  #checkAll(): void {
    void this.#workspaces().then((records) => {
      for (const record of records) this.check(record.id);
    });
  }

  async #workspaces(): Promise<WorkspaceRecord[]> {
    const all: WorkspaceRecord[] = [];
    for (let offset = 0; ; offset += 200) {
      const { items } = await this.core.repos.workspaces.list({ limit: 200, offset }).catch(() => ({ items: [] as WorkspaceRecord[] }));
      all.push(...items);
      if (items.length < 200) return all;
    }
  }

  async #stop(id: string): Promise<void> {
    const at = this.#waiting.indexOf(id);
    if (at >= 0) this.#waiting.splice(at, 1);
    const current = this.#current;
    if (current?.workspaceId !== id) return;
    current.controller.abort();
    await current.done;
  }

  /** One workspace at a time, in the order asked: a refill is background work, and several at once would only share the machine. */
  async #work(): Promise<void> {
    if (this.#working) return;
    this.#working = true;
    try {
      while (!this.#closed && this.#waiting.length > 0) {
        const workspaceId = this.#waiting.shift()!;
        const controller = new AbortController();
        const current: Preparing = { workspaceId, controller, done: Promise.resolve() };
        this.#current = current;
        current.done = this.#fill(current).catch((error: unknown) =>
          this.core.deps.logger.warn('workspace.pool_refill_failed', { workspaceId, error: (error as Error).message }),
        );
        await current.done;
        this.#current = undefined;
      }
    } finally {
      this.#working = false;
    }
  }

  /** Brings the workspace's pool to its size at the tip: surplus and stale worktrees out, fresh ones in, one at a time. */
  async #fill(current: Preparing): Promise<void> {
    const { workspaceId: id, controller } = current;
    // Before any git: a server at its budgets spawns nothing for its pools.
    if (this.#busy()) return this.#retryLater(id);
    const record = await this.core.repos.workspaces.get(id);
    const repository = record?.default_branch ? await this.repositoryOf(record) : null;
    if (!record || !repository) return;
    // A default branch that is gone leaves nothing to prepare at (runs fail as they are placed, and say why).
    const tip = await tipOf(repository, record.default_branch, this.core).catch(() => null);
    if (!tip) return;
    let size = 0;
    try {
      size = await this.#sizeAt(id, repository, tip);
    } catch (error) {
      this.#failures.set(id, { tip, at: Date.now(), message: (error as Error).message });
    }
    const pool = this.directory(id);
    while (!controller.signal.aborted) {
      await this.#trim(pool, repository, tip, size);
      if ((await pool.ready()).filter((manifest) => manifest.commit === tip).length >= size) return;
      const failure = this.#failures.get(id);
      if (failure?.tip === tip && Date.now() - failure.at < FAILED_RETRY_MS) return;
      if (this.#busy()) return this.#retryLater(id);
      const yielded = new AbortController();
      const grant = this.#admit(() => yielded.abort());
      if (!grant) return this.#retryLater(id);
      try {
        await this.#prepare(current, record, repository, tip, AbortSignal.any([controller.signal, yielded.signal]), grant);
        this.#failures.delete(id);
      } catch (error) {
        if (yielded.signal.aborted) return this.#retryLater(id);
        if (controller.signal.aborted) return;
        this.#failures.set(id, { tip, at: Date.now(), message: `the pool's setup at ${tip.slice(0, 12)} failed: ${(error as Error).message}` });
        throw error;
      } finally {
        grant.release();
      }
    }
  }

  /** `pool:` at the tip, read once per tip: a commit's file never changes, and the pool looks at every workspace every 10 s. */
  async #sizeAt(id: string, repository: string, tip: string): Promise<number> {
    const known = this.#sizes.get(id);
    if (known?.repository === repository && known.tip === tip) return known.size;
    const size = await poolSize(repository, tip, this.core);
    this.#sizes.set(id, { repository, tip, size });
    return size;
  }

  /**
   * `busy` says the server's run or agent budget is spent (a run waits for a run slot, an agent
   * for an agent slot): no refill starts then, and it is tried again a second later. The
   * composition root wires it, since the budgets are the engine's and the agents'.
   */
  holdWhile(busy: () => boolean): void {
    this.#busy = busy;
  }

  /** Out of the pool: what another repository's, fresh worktrees past the size, and stale ones past what fresh ones do not yet replace. */
  async #trim(pool: PoolDirectory, repository: string, tip: string, size: number): Promise<void> {
    const ready = (await pool.ready()).filter((manifest) => manifest.repository === repository);
    const fresh = ready.filter((manifest) => manifest.commit === tip).slice(0, size);
    const stale = ready.filter((manifest) => manifest.commit !== tip).slice(0, size - fresh.length);
    const keep = new Set([...fresh, ...stale].map((manifest) => manifest.name));
    for (const manifest of await pool.ready()) {
      if (keep.has(manifest.name) || !(await pool.claim(manifest.name))) continue;
      await pool.remove(manifest.name, manifest.repository);
    }
  }

  /** A place in the memory budget that a waiting node takes back (`onYield`); a place of no account without a budget. */
  #admit(onYield: () => void): MemoryGrant | null {
    if (!this.deps.memory) return { measured() {}, release() {} };
    return this.deps.memory.tryAcquireYielding(DEFAULT_NODE_ESTIMATE_BYTES.bash, onYield);
  }

  #retryLater(id: string): void {
    const timer = setTimeout(() => {
      this.#retries.delete(timer);
      this.check(id);
    }, RETRY_MS).unref();
    this.#retries.add(timer);
  }

  /** One worktree made at the tip and prepared, then published (its manifest, last); removed whole if anything fails or stops it. */
  async #prepare(current: Preparing, record: WorkspaceRecord, repository: string, tip: string, signal: AbortSignal, grant: MemoryGrant): Promise<void> {
    const pool = this.directory(record.id);
    const name = newPoolName();
    const path = pool.pathOf(name);
    const preparedAt = () => this.core.now();
    current.worktree = { name, commit: tip, startedAt: preparedAt() };
    await mkdir(pool.dir, { recursive: true });
    try {
      await pool.noteOwner(name);
      await runGit(['worktree', 'add', '--detach', '-f', '--', path, tip], { cwd: repository, ...this.core.git });
      const started = Date.now();
      const config = await readWorktreeConfig(path);
      let preparedBy: PoolManifest['preparedBy'] = 'none';
      let cacheKey: string | null = null;
      if (config?.setup) {
        const request = config.cache && { workspaceId: record.id, worktree: path, script: config.setup, keyFiles: config.cache.key, paths: config.cache.paths };
        const cache = request ? await cacheHandle(cacheSetting(this.core.deps, record.id), request) : null;
        cacheKey = cache?.key ?? null;
        preparedBy = await this.#setUp(pool, name, config.setup, path, await this.deps.envValues(record.id), cache, signal, grant);
      }
      if (signal.aborted) throw new Error('stopped');
      const durationMs = Date.now() - started;
      // Known now, while nothing waits for it: a run taking it at this commit then skips the setup's commit (a `git status`).
      const clean = (await runGit(['status', '--porcelain', '-z'], { cwd: path, ...this.core.git })) === '';
      const cachePaths = config?.cache?.paths ?? [];
      await pool.publish({ name, repository, commit: tip, preparedAt: preparedAt(), preparedBy, durationMs, cacheKey, cachePaths, clean });
      await rm(join(pool.dir, `${name}.owner`), { force: true });
      this.core.deps.logger.info('workspace.pool_prepared', { workspaceId: record.id, name, commit: tip, preparedBy, durationMs });
    } catch (error) {
      await pool.remove(name, repository);
      throw error;
    } finally {
      current.worktree = undefined;
    }
  }

  /** The setup in a pool worktree, at low priority, measured into its memory grant; how it was prepared, or why it failed. */
  async #setUp(
    pool: PoolDirectory,
    name: string,
    script: string,
    cwd: string,
    env: Record<string, string>,
    cache: Awaited<ReturnType<typeof cacheHandle>> | null,
    signal: AbortSignal,
    grant: MemoryGrant,
  ): Promise<'setup' | 'cache'> {
    let tail = '';
    const say = (_stream: string, text: string) => (tail = (tail + text).slice(-1024));
    const watch = watchTreeMemory({ limitBytes: undefined, logger: this.core.deps.logger, onSample: (bytes) => grant.measured(bytes) });
    const onProcess = (pid: number, stop: () => Promise<void>) => {
      watch.onProcess(pid, stop);
      void pool.noteOwner(name, pid).catch(() => {});
    };
    try {
      const outcome = await restoreOrRunSetup({ script, cwd, env, signal, say, niceness: NICENESS, onProcess }, cache, say);
      if (outcome.result !== 'completed') throw new Error(`${outcome.result}${tail.trim() ? `: ${tail.trim().split('\n').slice(-3).join(' | ')}` : ''}`);
      return outcome.source;
    } finally {
      watch.end();
    }
  }
}

/** The commit the workspace's default branch is at in `repository`. */
export async function tipOf(repository: string, branch: string, core: Pick<WorkspaceCore, 'git'>): Promise<string> {
  return (await runGit(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], { cwd: repository, ...core.git })).trim();
}

/** `pool:` of the tip's `.svc/worktree.yaml` (0 without one); rejects with its `file:line:col` errors when it is invalid. */
async function poolSize(repository: string, tip: string, core: Pick<WorkspaceCore, 'git'>): Promise<number> {
  return (await readWorktreeConfigAt(repository, tip, core.git))?.pool ?? 0;
}
