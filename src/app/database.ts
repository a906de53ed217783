import type { SvcStreamEvent } from '../conversations/index.js';
import type { EventBus, EventPublisher } from '../events/bus.js';
import type { Logger } from '../shared/logger.js';
import type { PostgresDatabase } from '../store/postgres/index.js';
import { newId } from '../shared/ids.js';
import { homeIdentity } from '../store/index.js';
import { notifyingPeers } from '../workspaces/peers.js';

/** Events a server publishes without storing them (`run_deleted`): relayed to the other servers' streams by NOTIFY. */
const UNSTORED_EVENTS = 'svc_unstored_events';
/** NOTIFY payloads are capped at 8000 bytes. */
const MAX_PAYLOAD = 7900;

/**
 * The repositories kept in PostgreSQL when `SVC_DATABASE_URL` is set (docs/scaling.md). Loaded
 * only then, so the driver adds nothing to the start-up of a file-store svc. Opening applies the
 * schema's migrations (under an advisory lock: servers starting together migrate once).
 *
 * A server (`server` given) also takes part with the others sharing the database: it claims runs
 * under a lease (engine/postgres-run-claims.ts), and its streams carry every server's events, read
 * from the tables in position order (store/postgres/event-feed.ts) instead of published as stored.
 * `home` is this process's SVC_HOME: its worktrees and clones are its own (docs/scaling.md).
 */
export async function openDatabaseRepositories(url: string, logger: Logger, bus: EventBus<SvcStreamEvent>, home: string, server?: { leaseMs: number }) {
  const [
    { openPostgres, openNotifier, openEventFeed },
    workspaces,
    conversations,
    conversationEvents,
    webhooks,
    schedules,
    runs,
    summaries,
    claims,
    config,
    triggers,
  ] = await Promise.all([
    import('../store/postgres/index.js'),
    import('../workspaces/postgres-repository.js'),
    import('../conversations/postgres-repository.js'),
    import('../conversations/postgres-events.js'),
    import('../webhooks/postgres-repository.js'),
    import('../schedules/postgres-repository.js'),
    import('../engine/postgres-run-repository.js'),
    import('../engine/postgres-run-summaries.js'),
    import('../engine/postgres-run-claims.js'),
    import('../config/postgres-repository.js'),
    import('../catalog/postgres-trigger-repository.js'),
  ]);
  const answering = server && (await import('../conversations/postgres-answering-claims.js'));
  // Before the pool: nothing to close if the home cannot be read.
  const homeId = await homeIdentity(home);
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
  // One lease per server for runs and conversations: the run heartbeat also takes over the conversations of dead servers.
  const serverId = newId('srv');
  const answeringClaims = notifier && answering?.postgresAnsweringClaims({ db: database, serverId, logger });
  const runClaims =
    notifier &&
    claims.postgresRunClaims({
      db: database,
      notifier,
      logger,
      leaseMs: server!.leaseMs,
      home: { id: homeId, path: home },
      serverId,
      onBeat: () => answeringClaims!.sweep(),
    });
  const sender = runClaims?.serverId ?? newId('cli');
  const send = (channel: string, payload: string) => pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
  /** An event published and not stored reaches every server's streams: told to the others, which publish it as their own. */
  const publishUnstored = (event: SvcStreamEvent) => {
    bus.publish(event);
    const payload = JSON.stringify({ sender, event });
    if (payload.length > MAX_PAYLOAD) return logger.warn('store.event_not_relayed', { type: event.type, bytes: payload.length });
    send(UNSTORED_EVENTS, payload).catch((error: unknown) => logger.warn('store.event_not_relayed', { type: event.type, error: (error as Error).message }));
  };
  await notifier?.listen(UNSTORED_EVENTS, (payload) => {
    const message = JSON.parse(payload) as { sender: string; event: SvcStreamEvent };
    if (message.sender !== sender) bus.publish(message.event);
  });
  /** What stores events: with the feed, an event is published when the feed reads it back, in every server's order. */
  const publisher: EventPublisher<SvcStreamEvent> = feed
    ? {
        nextPosition: () => bus.nextPosition(),
        publish: publishUnstored,
        publishWhenPersisted: (persisted, event) => bus.publishWhenPersisted(persisted, event),
        publishWhenStored: (stored) =>
          void stored.then(
            (event) => feed.stored((event as { pos: number }).pos),
            () => undefined,
          ),
      }
    : {
        nextPosition: () => bus.nextPosition(),
        publish: publishUnstored,
        publishWhenPersisted: (persisted, event) => bus.publishWhenPersisted(persisted, event),
        publishWhenStored: (stored) => bus.publishWhenStored(stored),
      };
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
    /** Deletions and clean-ups told to every server, each removing what its own home holds (workspaces/peers.ts). */
    workspacePeers: notifyingPeers({ notify: send, listen: notifier && ((channel, handler) => notifier.listen(channel, handler)) }, homeId, sender),
    conversations: conversations.postgresConversationRepositories(database, runClaims ? serverId : null),
    /** Which server answers each conversation (a server only). */
    answering: answeringClaims,
    conversationEvents: conversationEvents.postgresConversationEventLog(database, publisher),
    webhooks: webhooks.postgresWebhookRepositories(database),
    schedules: schedules.postgresScheduleRepository(database),
    config: config.postgresAssistantsConfigRepository(database),
    triggers: triggers.postgresTriggerRepository(database),
    runs: { repository: runs.postgresRunRepository(database, runClaims?.serverId ?? null), summaries: summaries.postgresRunSummaryIndex(database) },
  };
}
