/**
 * The worktree setup (docs/decisions.md, "Worktree setup and $SVC_PORT"): once in a run's new
 * worktree, before its first node — the `copy:` files of `.svc/worktree.yaml` brought in and its
 * `setup:` script run with bash, in its own process group, with what a bash node gets in its
 * environment (`$SVC_PORT` too). It is a step named `setup` on the run's stream (`setup_started`,
 * `setup_output`, `setup_finished`) and `setup` on the record; what it left in the worktree is a
 * commit `<workflow>: setup` of its own (the copied files never are). A failure fails the run with
 * `setup_failed` and the end of what it printed.
 */

import type { Logger } from '../../shared/logger.js';
import type { PooledPreparation, WorktreeProvider, WorktreePreparation } from './engine-deps.js';
import type { SetupSource } from '../model/setup-schema.js';
import type { RunEventFields } from '../model/events.js';
import { capUtf8, OUTPUT_CAP_BYTES } from '../model/node-state.js';
import { processVariables } from '../executor/nodes/process-env.js';
import { restoreOrRunSetup } from './setup-script.js';
import type { RunStore } from '../storage/run-store.js';
import type { RunRecord } from '../model/types.js';

/** How much of the end of the output `setup_failed` quotes in the run's error. */
const ERROR_TAIL_BYTES = 2 * 1024;

export interface SetupDeps {
  runs: RunStore;
  worktrees: Pick<WorktreeProvider, 'prepare' | 'commits'>;
  logger: Logger;
  /** The environment of the script: the workspace's env values and the run's variables (with `$SVC_PORT`). */
  env: Record<string, string>;
  timeoutMs?: number;
}

type Stream = RunEventFields['setup_output']['stream'];

/** The last `cap` bytes of `text` (about: a cut character at the start is dropped). */
function tailUtf8(text: string, cap: number): { text: string; truncated: boolean } {
  const bytes = Buffer.from(text);
  if (bytes.length <= cap) return { text, truncated: false };
  return {
    text: bytes
      .subarray(bytes.length - cap)
      .toString('utf8')
      .replace(/^\uFFFD+/, ''),
    truncated: true,
  };
}

/** What the setup output says of a worktree taken from the pool: when and how it was prepared. */
function pooledLine(pooled: PooledPreparation): string {
  const how = { cache: 'restored from the setup cache', none: 'no setup script', setup: `its setup ran in ${(pooled.durationMs / 1000).toFixed(1)} s` }[
    pooled.preparedBy
  ];
  const where = pooled.movedToBase
    ? `; prepared at ${pooled.commit.slice(0, 12)} and checked out at the run's base (the same cache key), keeping only the cache paths`
    : '';
  return `took a worktree prepared ahead from the pool (prepared at ${pooled.preparedAt}: ${how}${where})`;
}

/** Whether a run launching now gets the setup: it has a worktree, new, or whose last setup failed or was cancelled (a resume keeps a set-up worktree as it is). */
export function needsSetup(run: RunRecord, firstLaunch: boolean): boolean {
  return run.workspaceId !== null && Boolean(run.branch) && (firstLaunch || (run.setup !== undefined && run.setup.status !== 'completed'));
}

/**
 * Runs the setup; resolves to the run's snapshot with its `setup` (and the HEAD after it), and the
 * run's failure (`setup_failed: …`), or null when the nodes may start.
 */
export async function setUpWorktree(deps: SetupDeps, run: RunRecord, signal: AbortSignal): Promise<{ run: RunRecord; failure: string | null }> {
  const { runs } = deps;
  const started = Date.now();
  let headCommit: string | undefined;
  let preparation: WorktreePreparation | null = null;
  let output = '';
  let streamed = 0;
  const say = (stream: Stream, text: string) => {
    output += text;
    // Events carry the first 64 KiB, as a node's do; the record keeps the last 64 KiB.
    if (streamed >= OUTPUT_CAP_BYTES) return;
    const part = capUtf8(text, OUTPUT_CAP_BYTES - streamed);
    streamed += Buffer.byteLength(part.text);
    runs.emit(run, 'setup_output', { stream, text: part.text, ...(part.truncated ? { truncated: true } : {}) }).catch((error: unknown) => {
      deps.logger.error('run.event_write_failed', { runId: run.id, nodeId: 'setup', error: (error as Error).message });
    });
    if (output.length > 4 * OUTPUT_CAP_BYTES) output = tailUtf8(output, OUTPUT_CAP_BYTES).text;
  };
  let source: SetupSource = 'setup';
  const finish = async (status: 'completed' | 'failed' | 'cancelled', error?: string, copied: string[] = []) => {
    const kept = tailUtf8(output, OUTPUT_CAP_BYTES);
    const durationMs = Date.now() - started;
    const widening = preparation?.sandbox;
    const setup = {
      status,
      output: kept.text,
      ...(kept.truncated ? { outputTruncated: true } : {}),
      durationMs,
      source,
      ...(preparation?.cache ? { cacheKey: preparation.cache.key } : preparation?.pooled?.cacheKey ? { cacheKey: preparation.pooled.cacheKey } : {}),
      copied,
      ...(error ? { error } : {}),
      ...(widening ? { sandbox: { network: [...widening.network], read: [...widening.read], write: [...widening.write] } } : {}),
    };
    const set: RunRecord = { ...run, setup, ...(headCommit ? { headCommit } : {}) };
    await runs.emit(set, 'setup_finished', { status, durationMs, ...(error ? { error } : {}), ...(preparation ? { source } : {}) });
    await runs.save(set, { sync: false }, 'running');
    if (status !== 'failed') return { run: set, failure: null };
    const tail = tailUtf8(output.trimEnd(), ERROR_TAIL_BYTES).text;
    return { run: set, failure: `setup_failed: ${error}${tail ? `\n${tail}` : ''}` };
  };

  try {
    preparation = await deps.worktrees.prepare(run.workspaceId!, run.cwd);
  } catch (error) {
    await runs.emit(run, 'setup_started', {});
    return finish('failed', (error as Error).message);
  }
  if (!preparation) return { run, failure: null };
  await runs.emit(run, 'setup_started', {});
  const { copied } = preparation;
  for (const path of copied) say('system', `copied ${path}\n`);
  for (const path of preparation.missing) say('system', `not copied, not in the workspace's checkout: ${path}\n`);
  const { cache, pooled } = preparation;
  if (pooled) {
    source = 'pool';
    say('system', `${pooledLine(pooled)}; the setup did not run for this run\n`);
  }
  if (preparation.script === null) return finish('completed', undefined, copied);
  if (!pooled) {
    const script = { script: preparation.script, cwd: run.cwd, env: deps.env, timeoutMs: deps.timeoutMs, signal, say };
    const outcome = await restoreOrRunSetup(script, cache, say);
    source = outcome.source;
    if (outcome.result !== 'completed')
      return finish(outcome.result === 'cancelled' ? 'cancelled' : 'failed', outcome.result === 'cancelled' ? undefined : outcome.result, copied);
  }
  // What the setup made that .gitignore does not hide is the run's first commit, not the first node's change
  // (a worktree the pool prepared clean has none: copies are never committed).
  if (pooled?.clean) return finish('completed', undefined, copied);
  try {
    ({ head: headCommit } = await deps.worktrees.commits.commitAll(run.cwd, { subject: `${run.workflow}: setup`, runId: run.id }, copied));
  } catch (error) {
    return finish('failed', `svc could not commit what the setup changed: ${(error as Error).message}`, copied);
  }
  return finish('completed', undefined, copied);
}

/** The script's environment: the workspace's env values, then the run's variables as a bash node gets them. */
export const setupEnvironment = (workspaceEnv: Readonly<Record<string, string>>, variables: Readonly<Record<string, string>>) => ({
  ...workspaceEnv,
  ...processVariables(variables),
});
