/**
 * Rework runs (docs/decisions.md, "Landing queue"): with `rework: agent`, an entry that needs rework
 * gets a follow-on run of the `rework` workflow, told why (rework-text.ts); the queue follows that
 * run by its state, and once it completed the rework run enters the queue at the entry's place.
 */

import { isTerminal, type RunRecord, type RunStore } from '../runs/index.js';
import type { LandingSite, WorkspaceService } from '../workspaces/index.js';
import { changeEntry, EntryChanged, type Step } from './entry-change.js';
import { UNSTARTED, type QueueEntry } from './records.js';
import type { QueueRepository } from './repository.js';
import { reworkMessage } from './rework-text.js';

export interface ReworkRunsDeps {
  repository: QueueRepository;
  runs: RunStore;
  workspaces: Pick<WorkspaceService, 'landingSite'>;
  /** Starts a rework run (a follow-on run of `fromRunId`); resolves to its id. */
  startRework(input: { fromRunId: string; workspaceId: string; message: string }): Promise<string>;
}

export class ReworkRuns {
  constructor(private readonly deps: ReworkRunsDeps) {}

  /** Starts the entry's rework run and notes it; when it cannot start, the entry waits for a person, saying why. */
  async start(entry: QueueEntry, run: RunRecord, site: LandingSite): Promise<QueueEntry> {
    const side = { repository: site.environment.repository, branch: site.environment.branch, git: site.git };
    try {
      const reworkRunId = await this.deps.startRework({ fromRunId: run.id, workspaceId: entry.workspaceId, message: await reworkMessage(entry, run, side) });
      return await changeEntry(this.deps.repository, entry, { reworkRunId });
    } catch (error) {
      if (error instanceof EntryChanged) throw error;
      return changeEntry(this.deps.repository, entry, {
        awaitingRework: false,
        reason: `${entry.reason}; no rework run could start (${(error as Error).message}): it waits for a person`,
      });
    }
  }

  /**
   * An entry waiting for its rework run: started if a stop came between deciding and starting it;
   * once it completed, the rework run enters the queue at the entry's place; one that failed or
   * was stopped leaves the entry to a person.
   */
  async follow(entry: QueueEntry): Promise<Step> {
    const { runs, repository } = this.deps;
    if (!entry.reworkRunId) {
      const run = await runs.get(entry.runId);
      const site = run && (await this.deps.workspaces.landingSite(run.id, { sharedCheckout: true }).catch(() => undefined));
      if (!run || !site) return this.#giveUp(entry, `${entry.reason}; its branch is gone: it waits for a person`);
      await this.start(entry, run, site);
      return 'again';
    }
    const rework = await runs.get(entry.reworkRunId);
    if (rework && !isTerminal(rework.status)) return 'wait';
    if (!rework || rework.status !== 'completed') {
      return this.#giveUp(entry, `${entry.reason}; its rework run ${entry.reworkRunId} ended ${rework?.status ?? 'deleted'}: it waits for a person`);
    }
    const now = new Date().toISOString();
    const entered = await repository.enter(
      {
        ...entry,
        runId: rework.id,
        ...UNSTARTED,
        reworks: entry.reworks + 1,
        reworkOf: entry.runId,
        reworkRunId: null,
        awaitingRework: false,
        enteredAt: now,
        updatedAt: now,
        landedAt: null,
      },
      entry.position,
    );
    await changeEntry(this.deps.repository, entry, { awaitingRework: false });
    if (entered) await this.deps.runs.emit(rework, 'queue_entered', { workspaceId: entered.workspaceId, target: entered.target, position: entered.position });
    return 'again';
  }

  async #giveUp(entry: QueueEntry, reason: string): Promise<Step> {
    await changeEntry(this.deps.repository, entry, { awaitingRework: false, reason });
    return 'done';
  }
}
