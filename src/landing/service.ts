/**
 * Landing a run's branch, the use case whole (docs/decisions.md, "Landing a run: merge, push, pull
 * request"): the run must have stopped changing its worktree (landing-record.ts), the git happens
 * on the site its workspace gives (run-landing.ts), and a merge or pull request is recorded on the
 * run. The route only parses the request and formats the answer.
 */

import type { RunEngine, RunRecord } from '../runs/index.js';
import type { WorkspaceService } from '../workspaces/index.js';
import { assertLandable, recordLanding } from './landing-record.js';
import { mergeMessage, pullRequestBody, runSubject } from './landing-text.js';
import type { MergeStrategy } from './merge.js';
import { RunLanding } from './run-landing.js';

export interface MergeInput {
  /** Default: the workspace's default branch. */
  into?: string | undefined;
  /** Default: `merge`. */
  strategy?: MergeStrategy | undefined;
  /** Default: from the run's message. */
  message?: string | undefined;
}

export interface PullRequestInput {
  /** Default: the run's message's first line. */
  title?: string | undefined;
  /** Default: the last node's output and a summary of the run. */
  body?: string | undefined;
  /** Default: the workspace's default branch. */
  base?: string | undefined;
  draft?: boolean | undefined;
}

export class LandingService {
  constructor(private readonly deps: { engine: Pick<RunEngine, 'settled' | 'runs'>; workspaces: Pick<WorkspaceService, 'landingSite'> }) {}

  /**
   * Merges the run's branch, or, when it is in `into` already (the user landed it by hand), says
   * so (`alreadyLanded`) and records that on the run — unless the run's record already says it
   * landed there (svc's own merge, asked again), which stays as it is.
   */
  async merge(
    runId: string,
    request: MergeInput = {},
  ): Promise<{ merged: true; into: string; commit: string; strategy: MergeStrategy; alreadyLanded: boolean }> {
    const { run, landing } = await this.#open(runId);
    const into = request.into ?? landing.defaultBranch;
    const strategy = request.strategy ?? 'merge';
    const { alreadyLanded, ...merged } = await landing.merge({ into, strategy, message: request.message ?? mergeMessage(run, into, strategy) });
    if (!alreadyLanded || run.merged?.into !== into) {
      await recordLanding(this.deps.engine.runs, run, { merged: alreadyLanded ? { ...merged, alreadyLanded } : merged });
    }
    return { merged: true, ...merged, alreadyLanded };
  }

  async push(runId: string, remote = 'origin'): Promise<{ remote: string; branch: string }> {
    const { landing } = await this.#open(runId);
    return landing.push(remote);
  }

  async pullRequest(runId: string, request: PullRequestInput = {}): Promise<{ url: string }> {
    const { run, landing } = await this.#open(runId);
    const { url, base } = await landing.pullRequest({
      title: request.title ?? runSubject(run),
      body: request.body ?? pullRequestBody(run),
      base: request.base,
      draft: request.draft ?? false,
    });
    await recordLanding(this.deps.engine.runs, run, { pullRequest: { url, base } });
    return { url };
  }

  /** The run once its worktree stops changing (409 `no_worktree`, `run_active`), and its branch's site. */
  async #open(runId: string): Promise<{ run: RunRecord; landing: RunLanding }> {
    const run = await this.deps.engine.settled(runId);
    assertLandable(run);
    return { run, landing: new RunLanding(await this.deps.workspaces.landingSite(run.id)) };
  }
}
