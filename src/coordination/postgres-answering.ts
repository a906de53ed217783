/**
 * Who answers a conversation, on PostgreSQL (docs/scaling.md): `conversations.answering_server` is the server
 * answering a conversation. A send takes it for its server when nobody holds it, in the statement
 * that adds the message to the pending list (postgres-repository.ts), so a conversation with
 * pending messages always has a holder; the holder lets it go only when nothing is pending, in one
 * statement, so a message added meanwhile is never left without one. The lease is the run lease
 * (`svc_servers`): on each heartbeat of postgres-runs.ts (`sweep`), conversations held
 * by a server whose lease expired, or that left, are taken over in one statement with SKIP LOCKED,
 * so exactly one server takes each.
 *
 * A send of a process that answers nothing (the CLI's offline mode) leaves its conversation
 * unheld: it is told to the servers at once (`NOTIFY svc_conversations_waiting`), and each
 * heartbeat (and a reconnection of the listening connection) looks for such conversations too, so
 * a lost notification only delays; the first server whose claim succeeds answers them.
 */

import type { Logger } from '../shared/logger.js';
import type { Notifier, PostgresDatabase } from '../store/postgres/index.js';
import type { AnsweringAnnouncements, AnsweringCoordination, TakenConversation } from './types.js';

/** Conversations with a message waiting for a server: the payload is the conversation's id. */
const WAITING = 'svc_conversations_waiting';

/**
 * A process that answers nothing (the CLI's offline mode on the database): what it accepts is left
 * pending for a server, and told to the servers at once.
 */
export const handOffAnswering = (notifier: Pick<Notifier, 'notify'>): AnsweringCoordination => ({
  start: async () => {},
  accepted: async (conversationId) => void (await notifier.notify(WAITING, conversationId)),
  claim: async () => false,
  holds: async () => false,
  release: async () => true,
});

/** The record's pending ids as a jsonb array, whatever an older record holds there. */
const PENDING = "CASE WHEN jsonb_typeof(record->'pending_message_ids') = 'array' THEN record->'pending_message_ids' ELSE '[]'::jsonb END";

export interface PostgresAnswering extends AnsweringCoordination {
  /** Takes over the conversations of gone servers (called on each lease heartbeat). */
  sweep(): Promise<void>;
}

/** A server's part: it holds conversations under its run lease and answers them. */
export function postgresAnswering(options: { db: PostgresDatabase; notifier: Notifier; serverId: string; logger: Logger }): PostgresAnswering {
  const { db, notifier, serverId, logger } = options;
  let events: AnsweringAnnouncements | undefined;
  let sweeping: Promise<void> | undefined;

  const changed = async (sql: string, conversationId: string) => ((await db.query(sql, [conversationId, serverId])).rowCount ?? 0) > 0;

  /** Holders whose lease expired or which left. */
  const takeOver = async (): Promise<TakenConversation[]> => {
    const { rows } = await db.query<{ id: string; pending: string[] }>(
      `UPDATE conversations SET answering_server = $1 WHERE id IN (
         SELECT id FROM conversations c
         WHERE c.answering_server IS NOT NULL AND c.answering_server <> $1
           AND NOT EXISTS (SELECT 1 FROM svc_servers s WHERE s.id = c.answering_server AND s.lease_until >= now())
         FOR UPDATE SKIP LOCKED
       ) RETURNING id, ${PENDING} AS pending`,
      [serverId],
    );
    if (rows.length > 0) logger.warn('conversation.taken_over', { conversations: rows.map((row) => row.id) });
    return rows;
  };
  /** Pending messages nobody holds: waiting for a server (claimed when answered, not here). */
  const unheld = async () =>
    (await db.query<{ id: string }>('SELECT id FROM conversations WHERE has_pending AND answering_server IS NULL ORDER BY created_at, id')).rows.map(
      (row) => row.id,
    );
  const offerUnheld = async () => {
    const ids = await unheld();
    if (ids.length > 0) events?.waiting(ids);
  };

  return {
    async start(handlers) {
      events = handlers;
      await notifier.listen(WAITING, (conversationId) => events?.waiting([conversationId]));
      notifier.onReconnect(() => void offerUnheld().catch((error: unknown) => logger.error('conversation.offer_failed', { error: (error as Error).message })));
      handlers.taken(await takeOver());
      await offerUnheld();
    },
    // A send here took the conversation for this server in the statement that marked it pending (postgres-repository.ts).
    accepted: async () => {},
    claim: (id) => changed('UPDATE conversations SET answering_server = $2 WHERE id = $1 AND (answering_server IS NULL OR answering_server = $2)', id),
    holds: async (id) => (await db.query('SELECT 1 FROM conversations WHERE id = $1 AND answering_server = $2', [id, serverId])).rows.length > 0,
    release: (id) => changed('UPDATE conversations SET answering_server = NULL WHERE id = $1 AND answering_server = $2 AND NOT has_pending', id),
    sweep() {
      // Nothing is taken before the orchestrator listens (it starts after the first heartbeat).
      if (!events) return Promise.resolve();
      sweeping ??= takeOver()
        .then(async (conversations) => {
          if (conversations.length > 0) events?.taken(conversations);
          await offerUnheld();
        })
        .catch((error: unknown) => logger.error('conversation.take_over_failed', { error: (error as Error).message }))
        .finally(() => (sweeping = undefined));
      return sweeping;
    },
  };
}
