/**
 * AnsweringClaims on PostgreSQL (docs/scaling.md): `conversations.answering_server` is the server
 * answering a conversation. A send takes it for its server when nobody holds it, in the statement
 * that adds the message to the pending list (postgres-repository.ts), so a conversation with
 * pending messages always has a holder; the holder lets it go only when nothing is pending, in one
 * statement, so a message added meanwhile is never left without one. The lease is the run lease
 * (`svc_servers`): on each heartbeat of engine/postgres-run-claims.ts (`sweep`), conversations held
 * by a server whose lease expired, or that left, are taken over in one statement with SKIP LOCKED,
 * so exactly one server takes each.
 */

import type { Logger } from '../shared/logger.js';
import type { PostgresDatabase } from '../store/postgres/index.js';
import type { AnsweringClaims, TakenConversation } from './answering-claims.js';

/** The record's pending ids as a jsonb array, whatever an older record holds there. */
const PENDING = "CASE WHEN jsonb_typeof(record->'pending_message_ids') = 'array' THEN record->'pending_message_ids' ELSE '[]'::jsonb END";

export interface PostgresAnsweringClaims extends AnsweringClaims {
  /** Takes over the conversations of gone servers (called on each lease heartbeat). */
  sweep(): Promise<void>;
}

export function postgresAnsweringClaims(options: { db: PostgresDatabase; serverId: string; logger: Logger }): PostgresAnsweringClaims {
  const { db, serverId, logger } = options;
  let taken: ((conversations: TakenConversation[]) => void) | undefined;
  let sweeping: Promise<void> | undefined;

  const changed = async (sql: string, conversationId: string) => ((await db.query(sql, [conversationId, serverId])).rowCount ?? 0) > 0;

  /** Holders whose lease expired or which left; at start also pending conversations nobody holds. */
  const takeOver = async (atStart: boolean): Promise<TakenConversation[]> => {
    const { rows } = await db.query<{ id: string; pending: string[] }>(
      `UPDATE conversations SET answering_server = $1 WHERE id IN (
         SELECT id FROM conversations c
         WHERE (c.answering_server IS NOT NULL AND c.answering_server <> $1
                AND NOT EXISTS (SELECT 1 FROM svc_servers s WHERE s.id = c.answering_server AND s.lease_until >= now()))
            OR ($2 AND c.answering_server IS NULL AND c.has_pending)
         FOR UPDATE SKIP LOCKED
       ) RETURNING id, ${PENDING} AS pending`,
      [serverId, atStart],
    );
    if (rows.length > 0) logger.warn('conversation.taken_over', { conversations: rows.map((row) => row.id) });
    return rows;
  };

  return {
    serverId,
    async start(handler) {
      taken = handler;
      handler(await takeOver(true));
    },
    claim: (id) => changed('UPDATE conversations SET answering_server = $2 WHERE id = $1 AND (answering_server IS NULL OR answering_server = $2)', id),
    holds: async (id) => (await db.query('SELECT 1 FROM conversations WHERE id = $1 AND answering_server = $2', [id, serverId])).rows.length > 0,
    release: (id) => changed('UPDATE conversations SET answering_server = NULL WHERE id = $1 AND answering_server = $2 AND NOT has_pending', id),
    sweep() {
      // Nothing is taken before the orchestrator listens (it starts after the first heartbeat).
      if (!taken) return Promise.resolve();
      sweeping ??= takeOver(false)
        .then((conversations) => {
          if (conversations.length > 0) taken?.(conversations);
        })
        .catch((error: unknown) => logger.error('conversation.take_over_failed', { error: (error as Error).message }))
        .finally(() => (sweeping = undefined));
      return sweeping;
    },
  };
}
