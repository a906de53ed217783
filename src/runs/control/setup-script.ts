/**
 * A worktree's `setup:` script, wherever it runs (docs/decisions.md, "Worktree setup and
 * $SVC_PORT", "Setup cache and pool"): a run's setup step (run-setup.ts) and a workspace's pool
 * refill (workspaces/) both restore the setup cache's entry when its key has one, else run the
 * script with bash in its own process group and keep what it made for the next worktree of the key.
 */

import { spawnGroup } from '../../processes/index.js';
import { formatSize } from '../../shared/size.js';
import type { SetupCacheHandle } from './engine-deps.js';

/** A setup running longer is stopped and fails the run: an install that hangs must not hold a run slot for ever. */
export const SETUP_TIMEOUT_MS = 30 * 60 * 1000;

type Say = (stream: 'stdout' | 'stderr' | 'system', text: string) => void;

/** A setup script to run: where, with what environment, and where its output goes. */
export interface SetupScript {
  script: string;
  cwd: string;
  /** Added to svc's own environment. */
  env: Record<string, string>;
  timeoutMs?: number | undefined;
  signal: AbortSignal;
  say: Say;
  /** Run under `nice` at this niceness (a pool's refill, which no run waits for); absent: svc's own priority. */
  niceness?: number;
  /** Told of the script's process group as it starts (a pool's refill measures its tree). */
  onProcess?(pid: number, stop: () => Promise<void>): void;
}

/**
 * The cache's entry for the key restored, else the script run and what it made stored: `result`
 * is `completed`, `cancelled` or why the script failed; `source` says which happened. A failed
 * restore (an entry evicted while it was copied) is a miss; a failed store is said and the setup
 * still counts as done — only the next worktree loses.
 */
export async function restoreOrRunSetup(script: SetupScript, cache: SetupCacheHandle | null, say: Say): Promise<{ result: string; source: 'cache' | 'setup' }> {
  const restored = cache
    ? await cache.restore().catch((error: unknown) => {
        say('system', `the setup cache was not used: ${(error as Error).message}\n`);
        return null;
      })
    : null;
  if (restored) {
    const how = restored.cloned ? 'cloned' : 'copied';
    say('system', `restored ${restored.paths.join(', ')} from the setup cache (${formatSize(restored.sizeBytes)}, ${how}); the setup did not run\n`);
    return { result: 'completed', source: 'cache' };
  }
  if (cache) say('system', `no setup cache entry for this key yet: running the setup\n`);
  const result = await runSetupScript(script);
  if (result !== 'completed' || !cache) return { result, source: 'setup' };
  // Kept before anything else runs there, so the entry is what the setup made and nothing a node changed after it.
  try {
    const kept = await cache.store();
    if (kept) {
      const how = kept.cloned ? 'cloned' : 'copied';
      say('system', `cached ${kept.paths.join(', ')} (${formatSize(kept.sizeBytes)}, ${how}) for the next worktree with this key\n`);
    } else say('system', 'nothing to cache: the setup made none of the cache paths\n');
  } catch (error) {
    say('system', `the setup's output was not cached: ${(error as Error).message}\n`);
  }
  return { result, source: 'setup' };
}

/** `setup:` with bash in its own process group, stopped at the timeout or the signal; resolves to `completed`, `cancelled`, or why it failed. */
export async function runSetupScript(options: SetupScript): Promise<string> {
  const { script, signal, say } = options;
  let proc: ReturnType<typeof spawnGroup>;
  try {
    // `nice` execs bash in its place: the niceness holds for everything the script starts.
    const [command, args]: [string, string[]] =
      options.niceness === undefined ? ['bash', ['-c', script]] : ['nice', ['-n', String(options.niceness), 'bash', '-c', script]];
    proc = spawnGroup(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env } });
  } catch (error) {
    return `bash could not be started: ${(error as Error).message}`;
  }
  let stopped: 'timeout' | 'cancelled' | undefined;
  proc.child.stdout?.setEncoding('utf8');
  proc.child.stderr?.setEncoding('utf8');
  proc.child.stdout?.on('data', (text: string) => say('stdout', text));
  proc.child.stderr?.on('data', (text: string) => say('stderr', text));
  if (proc.child.pid !== undefined) options.onProcess?.(proc.child.pid, () => proc.terminate());
  const timeoutMs = options.timeoutMs ?? SETUP_TIMEOUT_MS;
  const timer = setTimeout(() => {
    stopped ??= 'timeout';
    void proc.terminate();
  }, timeoutMs);
  const onAbort = () => {
    stopped ??= 'cancelled';
    void proc.terminate();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) onAbort();
  try {
    const { code, signal: killedBy } = await proc.done;
    if (stopped === 'cancelled') return 'cancelled';
    if (stopped === 'timeout') return `the setup timed out after ${Math.round(timeoutMs / 1000)} s`;
    if (code !== 0) return killedBy ? `the setup was killed by ${killedBy}` : `the setup exited with code ${code}`;
    return 'completed';
  } catch (error) {
    return `bash could not be started: ${(error as Error).message}`;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}
