import { type SvcStreamEvent, loadPostgresConversations, loadPostgresConversationEvents } from '../conversations/index.js';
import { loadPostgresConfig } from '../config/index.js';
import { loadPostgresCoordination } from '../coordination/index.js';
import { loadPostgresRuns, loadPostgresRunSummaries } from '../runs/index.js';
import { loadPostgresSchedules } from '../schedules/index.js';
import { loadPostgresQueue } from '../queue/index.js';
import { loadPostgresPulls } from '../pulls/index.js';
import { loadPostgresWebhooks, loadPostgresTriggers } from '../webhooks/index.js';
import { loadPostgresWorkspaces } from '../workspaces/index.js';
import type { EventBus, EventPublisher } from '../events/index.js';
import type { Logger } from '../shared/logger.js';
import type { EventFeed, Notifier, PostgresDatabase } from '../store/postgres/index.js';
import { newId } from '../shared/ids.js';
import { homeIdentity } from '../store/index.js';

/** Events a server publishes without storing them (`run_deleted`): relayed to the other servers' streams by NOTIFY. */
const UNSTORED_EVENTS = 'svc_unstored_events';
/** NOTIFY payloads are capped at 8000 bytes. */
const MAX_PAYLOAD = 7900;

/**
 * The repositories kept in PostgreSQL when `SVC_DATABASE_URL` is set (docs/scaling.md). Loaded
 * only then, so the driver adds nothing to the start-up of a file-store svc. Opening applies the
 * schema's migrations (under an advisory lock: servers starting together migrate once).
 *
 * Every process on the database (a server, or the CLI's offline mode) publishes events as the feed
 * reads them back from the tables, in position order (store/postgres/event-feed.ts), instead of as
 * stored: its streams carry every server's events, so a CLI following a run sees it to the end on
 * whichever server executes it. A server (`options.takesPart`) also takes part with the others in
 * executing: it claims runs and answers conversations under a lease (the coordination,
 * coordination/postgres.ts). `home` is this process's SVC_HOME: its worktrees and clones are its
 * own (docs/scaling.md).
 */
export async function openDatabaseRepositories(
  url: string,
  logger: Logger,
  bus: EventBus<SvcStreamEvent>,
  home: string,
  options: { leaseMs: number; takesPart: boolean },
) {
  const [
    { openPostgres, openNotifier, openEventFeed },
    workspaces,
    conversations,
    conversationEvents,
    webhooks,
    schedules,
    runs,
    summaries,
    coordination,
    config,
    triggers,
    queue,
    pulls,
  ] = await Promise.all([
    import('../store/postgres/index.js'),
    loadPostgresWorkspaces(),
    loadPostgresConversations(),
    loadPostgresConversationEvents(),
    loadPostgresWebhooks(),
    loadPostgresSchedules(),
    loadPostgresRuns(),
    loadPostgresRunSummaries(),
    loadPostgresCoordination(),
    loadPostgresConfig(),
    loadPostgresTriggers(),
    loadPostgresQueue(),
    loadPostgresPulls(),
  ]);
  // Before the pool: nothing to close if the home cannot be read.
  const homeId = await homeIdentity(home);
  const pool = await openPostgres({ url, logger });
  logger.info('store.postgres_opened', { schemaVersion: pool.migrations.version, applied: pool.migrations.applied });
  const ownListeners = new Set<(event: SvcStreamEvent) => void>();
  let listening: Notifier | undefined;
  let opened: EventFeed;
  try {
    listening = await openNotifier({ url, logger, send: (text, params) => pool.query(text, params) });
    opened = await openEventFeed<SvcStreamEvent & { pos: number }>({
      db: pool,
      notifier: listening,
      logger,
      publish: (event, own) => {
        bus.publish(event);
        if (own) for (const listener of ownListeners) listener(event);
      },
    });
  } catch (error) {
    await listening?.close();
    await pool.close();
    throw error;
  }
  const [notifier, feed] = [listening, opened];
  // The feed and the listening connection close with the database.
  const database: PostgresDatabase = {
    ...pool,
    close: async () => {
      await feed.close();
      await notifier.close();
      await pool.close();
    },
  };
  const serverId = newId('srv');
  const server = options.takesPart;
  const sender = server ? serverId : newId('cli');
  const send = (channel: string, payload: string) => pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
  /** An event published and not stored reaches every server's streams: told to the others, which publish it as their own. */
  const publishUnstored = (event: SvcStreamEvent) => {
    bus.publish(event);
    const payload = JSON.stringify({ sender, event });
    if (payload.length > MAX_PAYLOAD) return logger.warn('store.event_not_relayed', { type: event.type, bytes: payload.length });
    send(UNSTORED_EVENTS, payload).catch((error: unknown) => logger.warn('store.event_not_relayed', { type: event.type, error: (error as Error).message }));
  };
  await notifier
    .listen(UNSTORED_EVENTS, (payload) => {
      const message = JSON.parse(payload) as { sender: string; event: SvcStreamEvent };
      if (message.sender !== sender) bus.publish(message.event);
    })
    .catch(async (error: unknown) => {
      // Opened above and not handed to the caller yet: nobody else would close it.
      await database.close();
      throw error;
    });
  /** What stores events: an event is published when the feed reads it back, in every server's order. */
  const publisher: EventPublisher<SvcStreamEvent> = {
    nextPosition: () => bus.nextPosition(),
    publish: publishUnstored,
    publishWhenStored: (stored) =>
      void stored.then(
        (event) => feed.stored((event as { pos: number }).pos),
        () => undefined,
      ),
  };
  return {
    database,
    /** Leases, claims, hand-offs and announcements among the processes on the database. */
    coordination: coordination.postgresCoordination({
      db: database,
      notifier,
      logger,
      leaseMs: options.leaseMs,
      home: { id: homeId, path: home },
      serverId,
      sender,
      takesPart: server,
    }),
    publisher,
    /** Events this process stored, as the feed publishes them (what only the process that produced an event acts on). */
    onOwnEvent: (listener: (event: SvcStreamEvent) => void) => {
      ownListeners.add(listener);
      return () => ownListeners.delete(listener);
    },
    workspaces: workspaces.postgresWorkspaceRepositories(database),
    conversations: conversations.postgresConversationRepositories(database, server ? serverId : null),
    conversationEvents: conversationEvents.postgresConversationEventLog(database, publisher),
    webhooks: webhooks.postgresWebhookRepositories(database),
    schedules: schedules.postgresScheduleRepository(database),
    /** What "missed while down" counts from on a server: the span in which servers have been up (a CLI process fires no schedules). */
    scheduleUpSince: server ? schedules.postgresScheduleUptime(database, serverId) : undefined,
    config: config.postgresAssistantsConfigRepository(database),
    triggers: triggers.postgresTriggerRepository(database),
    queue: queue.postgresQueueRepository(database),
    // A server's timer asks what is due leaving out what other live servers hold (docs/decisions.md, "Pull request reactions").
    pulls: pulls.postgresPullRepository(database, server ? serverId : null),
    runs: { repository: runs.postgresRunRepository(database, server ? serverId : null), summaries: summaries.postgresRunSummaryIndex(database) },
  };
}
