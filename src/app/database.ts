import type { SvcStreamEvent } from '../conversations/index.js';
import type { EventBus, EventPublisher } from '../events/bus.js';
import type { Logger } from '../shared/logger.js';
import type { EventFeed, Notifier, PostgresDatabase } from '../store/postgres/index.js';

/**
 * The repositories kept in PostgreSQL when `SVC_DATABASE_URL` is set (docs/scaling.md). Loaded
 * only then, so the driver adds nothing to the start-up of a file-store svc. Opening applies the
 * schema's migrations (under an advisory lock: servers starting together migrate once).
 *
 * Every process on the database (a server, or the CLI's offline mode) publishes events as the feed
 * reads them back from the tables, in position order (store/postgres/event-feed.ts), instead of as
 * stored: its streams carry every server's events, so a CLI following a run sees it to the end on
 * whichever server executes it. A server (`server` given) also takes part with the others in
 * executing: it claims runs under a lease (engine/postgres-run-claims.ts); the engine starts the
 * claims only in a server.
 */
export async function openDatabaseRepositories(url: string, logger: Logger, bus: EventBus<SvcStreamEvent>, options: { leaseMs: number; server: boolean }) {
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
  const ownListeners = new Set<(event: SvcStreamEvent) => void>();
  let notifier: Notifier | undefined;
  let feed: EventFeed;
  try {
    notifier = await openNotifier({ url, logger, send: (text, params) => pool.query(text, params) });
    feed = await openEventFeed<SvcStreamEvent & { pos: number }>({
      db: pool,
      notifier,
      logger,
      publish: (event, own) => {
        bus.publish(event);
        if (own) for (const listener of ownListeners) listener(event);
      },
    });
  } catch (error) {
    await notifier?.close();
    await pool.close();
    throw error;
  }
  const listening = notifier;
  // The feed and the listening connection close with the database.
  const database: PostgresDatabase = {
    ...pool,
    close: async () => {
      await feed.close();
      await listening.close();
      await pool.close();
    },
  };
  /** What stores events: an event is published when the feed reads it back, in every server's order. */
  const publisher: EventPublisher<SvcStreamEvent> = {
    nextPosition: () => bus.nextPosition(),
    publish: (event) => bus.publish(event),
    publishWhenPersisted: (persisted, event) => bus.publishWhenPersisted(persisted, event),
    publishWhenStored: (stored) =>
      void stored.then(
        (event) => feed.stored((event as { pos: number }).pos),
        () => undefined,
      ),
  };
  // Another process on the database (the CLI's offline mode) never starts the claims: it registers
  // no lease and claims nothing, but hands what it changes to the servers as a server would: a run
  // it leaves pending is announced, a stop of a run a server executes is forwarded to that server.
  const runClaims = claims.postgresRunClaims({ db: database, notifier: listening, logger, leaseMs: options.leaseMs });
  return {
    database,
    claims: runClaims,
    publisher,
    /** Events this process stored, as the feed publishes them (what only the process that produced an event acts on). */
    onOwnEvent: (listener: (event: SvcStreamEvent) => void) => {
      ownListeners.add(listener);
      return () => ownListeners.delete(listener);
    },
    workspaces: workspaces.postgresWorkspaceRepositories(database),
    conversations: conversations.postgresConversationRepositories(database),
    conversationEvents: conversationEvents.postgresConversationEventLog(database, publisher),
    webhooks: webhooks.postgresWebhookRepositories(database),
    schedules: schedules.postgresScheduleRepository(database),
    /** What "missed while down" counts from on a server: the span in which servers have been up (a CLI process fires no schedules). */
    scheduleUpSince: options.server ? schedules.postgresScheduleUptime(database, runClaims.serverId) : undefined,
    runs: {
      repository: runs.postgresRunRepository(database, options.server ? runClaims.serverId : null),
      summaries: summaries.postgresRunSummaryIndex(database),
    },
  };
}
