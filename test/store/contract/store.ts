/**
 * What every store contract suite is given: a factory of one store, file or PostgreSQL, opening the
 * repositories of each domain on it. `reopen()` is the same data as a restarted server sees it.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTriggerRepository, type TriggerRepository } from '../../../src/webhooks/index.js';
import { postgresTriggerRepository } from '../../../src/webhooks/postgres-trigger-repository.js';
import { openAssistantsConfigRepository, type AssistantsConfigRepository } from '../../../src/config/repository.js';
import { postgresAssistantsConfigRepository } from '../../../src/config/postgres-repository.js';
import { openConversationRepositories, type ConversationRepositories } from '../../../src/conversations/index.js';
import { postgresConversationRepositories } from '../../../src/conversations/postgres-repository.js';
import { openQueueRepository, type QueueRepository } from '../../../src/queue/index.js';
import { postgresQueueRepository } from '../../../src/queue/postgres-repository.js';
import { openPullRepository, type PullRepository } from '../../../src/pulls/index.js';
import { postgresPullRepository } from '../../../src/pulls/postgres-repository.js';
import { openScheduleRepository, type ScheduleStateRepository } from '../../../src/schedules/index.js';
import { postgresScheduleRepository } from '../../../src/schedules/postgres-repository.js';
import { postgresRunRepository } from '../../../src/runs/storage/postgres-run-repository.js';
import { openFileRunRepository, type RunRepository } from '../../../src/runs/storage/run-repository.js';
import { postgresRunSummaryIndex } from '../../../src/runs/storage/postgres-run-summaries.js';
import { openRunSummaryIndex, type RunSummaryIndex } from '../../../src/runs/storage/run-summaries.js';
import type { RunRecord } from '../../../src/runs/model/types.js';
import { EventBus } from '../../../src/events/bus.js';
import { silentLogger } from '../../../src/shared/logger.js';
import { openFileStore } from '../../../src/store/index.js';
import { openPostgres } from '../../../src/store/postgres/index.js';
import { openWebhookRepositories, type WebhookRepositories } from '../../../src/webhooks/index.js';
import { postgresWebhookRepositories } from '../../../src/webhooks/postgres-repository.js';
import { openWorkspaceRepositories, type WorkspaceRepositories } from '../../../src/workspaces/repository.js';
import { postgresWorkspaceRepositories } from '../../../src/workspaces/postgres-repository.js';

export interface ContractStore {
  workspaces(): Promise<WorkspaceRepositories>;
  conversations(): Promise<ConversationRepositories>;
  webhooks(options?: { history?: number }): Promise<WebhookRepositories>;
  schedules(): Promise<ScheduleStateRepository>;
  queue(): Promise<QueueRepository>;
  /** `serverId`: the server whose timer asks what is due (PostgreSQL leaves out what other live servers hold). */
  pulls(options?: { serverId?: string }): Promise<PullRepository>;
  /**
   * Makes `serverId` hold the run's pull request, its lease live or run out — only where other
   * servers can exist: the file store is one process's (the store's lock), so it has none.
   */
  holdPull?(runId: string, serverId: string, live: boolean): Promise<void>;
  config(): Promise<AssistantsConfigRepository>;
  triggers(): Promise<TriggerRepository>;
  runs(): Promise<RunRepository>;
  /** The benchmarks' run summaries; on the file store built from the run records saved through `runs()`. */
  runSummaries(): Promise<RunSummaryIndex>;
  /** Closes this one and opens the same data again, as a restarted server would. */
  reopen(): Promise<ContractStore>;
  close(): Promise<void>;
}

export type ContractStoreFactory = () => Promise<ContractStore>;

/** The embedded store in a temp SVC_HOME, removed by the last close. */
export async function fileContractStore(): Promise<ContractStore> {
  const home = await mkdtemp(join(tmpdir(), 'svc-contract-'));
  const open = async (): Promise<ContractStore> => {
    const store = await openFileStore({ home, logger: silentLogger, lock: 'cli' });
    const bus = new EventBus();
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      await store.close();
    };
    return {
      workspaces: () => openWorkspaceRepositories(store),
      conversations: () => openConversationRepositories(store),
      webhooks: (options) => openWebhookRepositories(store, options),
      schedules: () => openScheduleRepository(store),
      queue: () => openQueueRepository(store),
      pulls: () => openPullRepository(store),
      config: () => openAssistantsConfigRepository(store),
      triggers: () => openTriggerRepository(store),
      // Positions from the bus's clock, as the server's RunStore takes them.
      runs: () => openFileRunRepository(store, () => bus.nextPosition()),
      runSummaries: async () => openRunSummaryIndex((await store.collection<RunRecord>('runs', 'per-record')).all()),
      async reopen() {
        await close();
        return open();
      },
      async close() {
        await close();
        await rm(home, { recursive: true, force: true });
      },
    };
  };
  return open();
}

/** A PostgreSQL store on a fresh database of the test file's server (test/support/postgres.ts). */
export function postgresContractStore(createDatabase: () => Promise<string>): ContractStoreFactory {
  return async () => {
    const url = await createDatabase();
    const open = async (): Promise<ContractStore> => {
      const db = await openPostgres({ url, logger: silentLogger });
      let closed = false;
      const close = async () => {
        if (closed) return;
        closed = true;
        await db.close();
      };
      return {
        workspaces: async () => postgresWorkspaceRepositories(db),
        conversations: async () => postgresConversationRepositories(db),
        webhooks: async (options) => postgresWebhookRepositories(db, options),
        schedules: async () => postgresScheduleRepository(db),
        queue: async () => postgresQueueRepository(db),
        pulls: async (options = {}) => postgresPullRepository(db, options.serverId ?? null),
        async holdPull(runId, serverId, live) {
          await db.query(
            'INSERT INTO svc_servers (id, lease_until) VALUES ($1, now() + $2::interval) ON CONFLICT (id) DO UPDATE SET lease_until = EXCLUDED.lease_until',
            [serverId, live ? '1 hour' : '-1 hour'],
          );
          await db.query(
            'INSERT INTO pull_follow_holders (run_id, server_id) VALUES ($1, $2) ON CONFLICT (run_id) DO UPDATE SET server_id = EXCLUDED.server_id',
            [runId, serverId],
          );
        },
        config: async () => postgresAssistantsConfigRepository(db),
        triggers: async () => postgresTriggerRepository(db),
        runs: async () => postgresRunRepository(db),
        runSummaries: async () => postgresRunSummaryIndex(db),
        async reopen() {
          await close();
          return open();
        },
        close,
      };
    };
    return open();
  };
}
