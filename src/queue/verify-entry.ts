/**
 * One queue entry's verification (docs/decisions.md, "Landing queue"): `verify:` of the target's
 * `.svc/worktree.yaml` at the commit the candidate was built on, run as a bash node of the entry's
 * run in a scratch worktree whose HEAD is the candidate, inside the server's memory budget. It says
 * what happened and decides nothing: whether a failure is the entry's own depends on what is ahead
 * of it (lander.ts).
 */

import { join } from 'node:path';
import { parseDuration } from '../shared/duration.js';
import { DEFAULT_NODE_ESTIMATE_BYTES, PendingGrant, type MemoryAdmission } from '../processes/index.js';
import { runVerification, type RunRecord, type RunStore, type SandboxDeps } from '../runs/index.js';
import { readWorktreeConfigAt, WorktreeConfigError, type LandingSite, type WorkspaceService } from '../workspaces/index.js';
import type { QueueEntry } from './records.js';
import { openScratch } from './scratch.js';
import { outputTail } from './queue-text.js';

export interface VerifyDeps {
  runs: RunStore;
  workspaces: Pick<WorkspaceService, 'envValues'>;
  sandbox: SandboxDeps;
  /** `<home>/queue`: the scratch worktrees, one folder per workspace. */
  scratchDir: string;
  /** The server's memory budget: a verification is admitted as a bash node is. */
  memory?: MemoryAdmission | undefined;
}

/** Why an entry is not landed: a person or a rework run reads it. */
export interface Failure {
  reason: string;
  files?: string[];
  outputTail?: string;
}

/** Passed (or nothing to run), failed, or stopped before it could tell (the server or the train stopped it). */
export type Verdict = { kind: 'passed' } | { kind: 'failed'; failure: Failure } | { kind: 'stopped' };

export interface Candidate {
  /** The entry as saved `verifying`, with `base` and `commit`. */
  entry: QueueEntry;
  run: RunRecord;
  site: LandingSite;
  /** Runs ahead of it in the same train, not landed yet when it was built: it was built on them. */
  ahead: string[];
}

/** The target's verification settings at `base`: its own `verify:` (never the candidate's) and, checked only, the candidate's file. */
async function verifySettings(candidate: Candidate): Promise<{ script?: string; timeoutMs?: number } | Failure> {
  const { entry, site } = candidate;
  const repository = site.environment.repository;
  try {
    // The target's own `verify:`, at the tip the candidate was built on — never the candidate's:
    // the run being landed must not choose what checks it (`verify: exit 0`).
    const target = await readWorktreeConfigAt(repository, entry.base!, site.git);
    // The candidate's own file is checked, never run: a broken one must not land and fail every later run's setup.
    await readWorktreeConfigAt(repository, entry.commit!, site.git);
    const timeoutMs = target?.verify_timeout === undefined ? undefined : (parseDuration(target.verify_timeout) ?? undefined);
    return { ...(target?.verify !== undefined ? { script: target.verify } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
  } catch (error) {
    if (error instanceof WorktreeConfigError) return { reason: `.svc/worktree.yaml cannot be used: ${error.message}` };
    throw error;
  }
}

export async function verifyCandidate(deps: VerifyDeps, candidate: Candidate, signal: AbortSignal): Promise<Verdict> {
  const { entry, run, site } = candidate;
  const commit = entry.commit!;
  const settings = await verifySettings(candidate);
  if ('reason' in settings) return { kind: 'failed', failure: settings };
  await deps.runs.emit(run, 'queue_verifying', {
    workspaceId: entry.workspaceId,
    target: entry.target,
    base: entry.base!,
    commit,
    verify: settings.script !== undefined,
    ...(candidate.ahead.length ? { ahead: candidate.ahead } : {}),
  });
  if (settings.script === undefined) return { kind: 'passed' };
  const grant = new PendingGrant(deps.memory, DEFAULT_NODE_ESTIMATE_BYTES.bash, signal);
  try {
    await grant.admit();
  } catch {
    return { kind: 'stopped' };
  }
  const scratch = await openScratch(
    { dir: join(deps.scratchDir, entry.workspaceId), repository: site.environment.repository, runId: run.id, attempt: entry.attempts },
    commit,
    site.git,
  );
  try {
    const outcome = await runVerification(
      {
        run,
        cwd: scratch.path,
        script: settings.script,
        env: await deps.workspaces.envValues(entry.workspaceId),
        variables: { RUN_ID: run.id, SVC_LAND_TARGET: entry.target, SVC_LAND_COMMIT: commit },
        artifactsDir: deps.runs.artifactsDir(run.id),
        signal,
        timeoutMs: settings.timeoutMs,
      },
      deps.sandbox,
    );
    if (outcome.passed) return { kind: 'passed' };
    if (signal.aborted) return { kind: 'stopped' };
    return {
      kind: 'failed',
      failure: { reason: `verify failed on ${commit.slice(0, 12)}: ${outcome.message}`, outputTail: outputTail(outcome.output) },
    };
  } finally {
    grant.release();
    await scratch.remove();
  }
}
