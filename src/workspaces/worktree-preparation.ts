/**
 * A new worktree's preparation (docs/decisions.md, "Worktree setup and $SVC_PORT"): its
 * `.svc/worktree.yaml` read and checked, the `copy:` files copied from the workspace's checkout —
 * under the env-leak gate: files holding agent keys are copied only with the workspace's consent,
 * as agents would otherwise find them where they work — and the `setup:` script handed back for the
 * engine to run. Null when the worktree has no such file.
 */

import { DomainError } from '../shared/errors.js';
import { mergeSandbox } from '../workflows/index.js';
import { scanListedFiles } from './env-scan.js';
import { readWorktreeConfig } from './worktree-config.js';
import { copyIntoWorktree } from './worktree-copy.js';
import { cacheKey, DEFAULT_CACHE_MAX_BYTES, evictSetupCaches, SetupCache, workspaceCacheDir, type CacheEntry, type CacheRequest } from './setup-cache.js';
import type { Logger } from '../shared/logger.js';
import { runGit } from './git.js';
import type { SetupCacheHandle, WorktreePreparation } from '../runs/index.js';

export type { WorktreePreparation };

/** The setup cache's place and limit for a workspace (setup-cache.ts), and git's environment for reading the key. */
export interface CacheSetting {
  cache: SetupCache;
  /** Called after an entry was stored: the home's caches are trimmed to `SVC_CACHE_MAX_BYTES`. */
  stored(): Promise<void>;
  env: NodeJS.ProcessEnv;
}

export async function prepareWorktree(
  workspace: { id: string; checkout: string; allowEnvKeys: boolean },
  worktree: string,
  caching?: CacheSetting,
): Promise<WorktreePreparation | null> {
  const config = await readWorktreeConfig(worktree);
  if (!config) return null;
  const paths = config.copy ?? [];
  if (paths.length && !workspace.allowEnvKeys) {
    const { files, keys } = await scanListedFiles(workspace.checkout, paths);
    if (keys.length) {
      throw new DomainError(
        'env_leak_blocked',
        `copying ${files.join(', ')} would put agent keys (${keys.join(', ')}) into the worktree, where agents work; ` +
          `remove them, or consent with \`svc workspace consent ${workspace.id} --allow\`.`,
        { workspaceId: workspace.id, files, keys },
      );
    }
  }
  const { copied, missing } = paths.length ? await copyIntoWorktree(workspace.checkout, worktree, paths) : { copied: [], missing: [] };
  const script = config.setup ?? null;
  const cache =
    script !== null && config.cache && caching
      ? await cacheHandle(caching, { workspaceId: workspace.id, worktree, script, keyFiles: config.cache.key, paths: config.cache.paths })
      : null;
  return { script, copied, missing, sandbox: config.sandbox ? mergeSandbox(config.sandbox, undefined)! : null, cache };
}

/** The workspace's setup cache in the home, its store trimming the home's caches to `SVC_CACHE_MAX_BYTES`. */
export function cacheSetting(
  deps: { home: string; env: NodeJS.ProcessEnv; cacheMaxBytes?: number | undefined; logger: Logger },
  workspaceId: string,
): CacheSetting {
  const { home, env, cacheMaxBytes = DEFAULT_CACHE_MAX_BYTES, logger } = deps;
  return {
    cache: new SetupCache(workspaceCacheDir(home, workspaceId)),
    env,
    stored: async () => {
      const removed = await evictSetupCaches(home, cacheMaxBytes);
      if (removed.length) logger.info('workspace.cache_evicted', { entries: removed.length, maxBytes: cacheMaxBytes });
    },
  };
}

/** The cache as one worktree's setup sees it (a run's, or a pool's refill). */
export async function cacheHandle({ cache, stored, env }: CacheSetting, request: CacheRequest): Promise<SetupCacheHandle> {
  const key = await cacheKey(request, env);
  const figures = (entry: CacheEntry | null) => entry && { paths: entry.paths, sizeBytes: entry.sizeBytes, cloned: entry.cloned };
  return {
    key,
    restore: async () => {
      await assertUntracked(request, env);
      return figures(await cache.restore(key, request.worktree));
    },
    store: async () => {
      await assertUntracked(request, env);
      const entry = await cache.store(key, request.worktree, request.paths);
      if (entry) await stored();
      return figures(entry);
    },
  };
}

/**
 * A cache path is what the setup makes, not what the repository holds: restoring one that holds
 * tracked files would put another commit's versions of them in place, and the setup's commit
 * would silently revert them.
 */
async function assertUntracked(request: CacheRequest, env: NodeJS.ProcessEnv): Promise<void> {
  for (const path of request.paths) {
    const tracked = await runGit(['ls-files', '-z', '--', `:(literal)${path}`], { cwd: request.worktree, env });
    if (tracked.length > 0) throw new Error(`${path} holds files git tracks: a cache path names what the setup makes (untracked), not cached or restored`);
  }
}
