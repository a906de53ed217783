/**
 * What following a pull request is given (the composition root wires it), and the one way a
 * follow changes: by compare-and-set on the whole record, so a process that lost the pull request
 * to another (a lease run out) stops rather than decides twice.
 */

import type { PullCoordination } from '../coordination/index.js';
import type { RunEngine, RunEventFields, RunRecord } from '../runs/index.js';
import type { Logger } from '../shared/logger.js';
import type { WorkspaceService, WorktreeGit } from '../workspaces/index.js';
import { cleanStrings } from './clean-text.js';
import type { GhSite } from './github.js';
import type { PullFollow } from './records.js';
import type { PullRepository } from './repository.js';
import { nextLookAt } from './schedule.js';

export interface PullDeps {
  repository: PullRepository;
  engine: Pick<RunEngine, 'start' | 'find' | 'runs'>;
  workspaces: Pick<WorkspaceService, 'landingSite' | 'cleanupPushed'>;
  coordination: PullCoordination;
  /** `SVC_GH_BIN`. */
  ghBin: string;
  /** The environment gh and git run with, and the time limit. */
  git: WorktreeGit;
  /** Where gh runs when the run's repository is not needed (every call names `--repo`): svc's home. */
  home: string;
  logger: Logger;
  /** `SVC_PR_POLL_MS`: a fixed interval without backoff; undefined for the schedule (schedule.ts). */
  pollMs: number | undefined;
  /** `SVC_PR_CHECK_STUCK_MS`: a check running this long on one head commit is stuck (stuck.ts); default 6 h. */
  checkStuckMs?: number;
  /** `SVC_GITHUB_WEBHOOK_SECRET`: what GitHub's deliveries are signed with; unset, they are refused (503). */
  webhookSecret?: string | undefined;
  now?: () => Date;
}

/** Another process changed the follow since it was read: it follows the pull request now, this one stops. */
export class FollowChanged extends Error {}

export class Follows {
  readonly #closing = new AbortController();

  constructor(readonly deps: PullDeps) {}

  /** Stops every gh call under way and to come: the server is closing. */
  stop(): void {
    this.#closing.abort();
  }

  now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  get site(): GhSite {
    return { ghBin: this.deps.ghBin, cwd: this.deps.home, git: this.deps.git, signal: this.#closing.signal };
  }

  /**
   * Saves `patch` over `follow` as it was read, with its next look scheduled (`lookNow`: due at once,
   * for whichever server holds it); rejects with FollowChanged when it changed meanwhile.
   */
  async save(follow: PullFollow, patch: Partial<PullFollow>, options: { lookNow?: boolean } = {}): Promise<PullFollow> {
    const now = this.now();
    const merged = { ...follow, ...patch };
    const next: PullFollow = cleanStrings({
      ...merged,
      updatedAt: now.toISOString(),
      nextLookAt: options.lookNow ? now.toISOString() : nextLookAt(merged, now, this.deps.pollMs),
    });
    // Cleaned as the store keeps it (gh's output can hold NUL), so the copy returned is the one stored.
    if (!(await this.deps.repository.replaceIf(follow, next))) throw new FollowChanged(`The pull request of run ${follow.runId} changed meanwhile`);
    return next;
  }

  /**
   * An event on the original run's stream, its strings cleaned as a follow's are (a check's name, a
   * reason quoting gh): a failure to record it is logged, never a reason to stop following.
   */
  async emit<T extends keyof RunEventFields>(run: RunRecord, type: T, fields: RunEventFields[T]): Promise<void> {
    await this.deps.engine.runs
      .emit(run, type, cleanStrings(fields))
      .catch((error: unknown) => this.deps.logger.warn('pulls.event_failed', { runId: run.id, type, error: (error as Error).message }));
  }
}
