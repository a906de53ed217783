import type { SvcStreamEvent } from '../conversations/index.js';
import type { EventBus, EventPublisher } from '../events/bus.js';
import type { Logger } from '../shared/logger.js';
import type { PostgresDatabase } from '../store/postgres/index.js';

/**
 * The repositories kept in PostgreSQL when `SVC_DATABASE_URL` is set (docs/scaling.md). Loaded
 * only then, so the driver adds nothing to the start-up of a file-store svc. Opening applies the
 * schema's migrations (under an advisory lock: servers starting together migrate once).
 *
 * A server (`server` given) also takes part with the others sharing the database: it claims runs
 * under a lease (engine/postgres-run-claims.ts), and its streams carry every server's events, read
 * from the tables in position order (store/postgres/event-feed.ts) instead of published as stored.
 */
export async function openDatabaseRepositories(url: string, logger: Logger, bus: EventBus<SvcStreamEvent>, server?: { leaseMs: number }) {
  const [{ openPostgres, openNotifier, openEventFeed }, workspaces, conversations, conversationEvents, webhooks, schedules, runs, summaries, claims] =
    await Promise.all([
      import('../store/postgres/index.js'),
      import('../workspaces/postgres-repository.js'),
      import('../conversations/postgres-repository.js'),
      import('../conversations/postgres-events.js'),
      import('../webhooks/postgres-repository.js'),
      import('../schedules/postgres-repository.js'),
      import('../engine/postgres-run-repository.js'),
      import('../engine/postgres-run-summaries.js'),
      import('../engine/postgres-run-claims.js'),
    ]);
  const pool = await openPostgres({ url, logger });
  logger.info('store.postgres_opened', { schemaVersion: pool.migrations.version, applied: pool.migrations.applied });
  const notifier = server ? await openNotifier({ url, logger, send: (text, params) => pool.query(text, params) }) : undefined;
  const ownListeners = new Set<(event: SvcStreamEvent) => void>();
  const feed =
    notifier &&
    (await openEventFeed<SvcStreamEvent & { pos: number }>({
      db: pool,
      notifier,
      logger,
      publish: (event, own) => {
        bus.publish(event);
        if (own) for (const listener of ownListeners) listener(event);
      },
    }));
  // The feed and the listening connection close with the database.
  const database: PostgresDatabase = {
    ...pool,
    close: async () => {
      await feed?.close();
      await notifier?.close();
      await pool.close();
    },
  };
  /** What stores events: with the feed, an event is published when the feed reads it back, in every server's order. */
  const publisher: EventPublisher<SvcStreamEvent> = feed
    ? {
        nextPosition: () => bus.nextPosition(),
        publish: (event) => bus.publish(event),
        publishWhenPersisted: (persisted, event) => bus.publishWhenPersisted(persisted, event),
        publishWhenStored: (stored) =>
          void stored.then(
            (event) => feed.stored((event as { pos: number }).pos),
            () => undefined,
          ),
      }
    : bus;
  const runClaims = notifier && claims.postgresRunClaims({ db: database, notifier, logger, leaseMs: server!.leaseMs });
  return {
    database,
    claims: runClaims,
    publisher,
    /** Events this process stored, as the feed publishes them (what only the server that produced an event acts on). */
    onOwnEvent: feed
      ? (listener: (event: SvcStreamEvent) => void) => {
          ownListeners.add(listener);
          return () => ownListeners.delete(listener);
        }
      : undefined,
    workspaces: workspaces.postgresWorkspaceRepositories(database),
    conversations: conversations.postgresConversationRepositories(database),
    conversationEvents: conversationEvents.postgresConversationEventLog(database, publisher),
    webhooks: webhooks.postgresWebhookRepositories(database),
    schedules: schedules.postgresScheduleRepository(database),
    /** What "missed while down" counts from on a server: the span in which servers have been up (a CLI process fires no schedules). */
    scheduleUpSince: runClaims && schedules.postgresScheduleUptime(database, runClaims.serverId),
    runs: { repository: runs.postgresRunRepository(database, runClaims?.serverId ?? null), summaries: summaries.postgresRunSummaryIndex(database) },
  };
}
