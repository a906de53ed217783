/**
 * Conversation events on PostgreSQL (docs/decisions.md, "PostgreSQL store"): rows of
 * `conversation_events`, positioned by the same sequence as run events, so a conversation's stream
 * (its runs' events and its own) has one order on every server. Replay holds back events of
 * transactions still open, as run events do (runs/storage/postgres-run-repository.ts).
 */

import type { EventPublisher } from '../events/index.js';
import { asJson, type PostgresDatabase } from '../store/postgres/index.js';
import type { ConversationEvent, ConversationEventLog, ConversationEventOf } from './events.js';

export function postgresConversationEventLog(db: PostgresDatabase, bus: EventPublisher<ConversationEvent>): ConversationEventLog {
  return {
    async emit(conversationId, type, fields) {
      const event = { type, at: new Date().toISOString(), conversationId, ...fields };
      // Positions are taken in the order this process asks for them, and published in that order.
      const stored = db.inOrder(async () => {
        const { rows } = await db.query<{ record: ConversationEvent }>(
          `INSERT INTO conversation_events (position, conversation_id, record)
           SELECT p, $1, $2::jsonb || jsonb_build_object('pos', p) FROM (SELECT nextval('svc_event_position') AS p) AS next
           RETURNING record`,
          [conversationId, asJson(event)],
        );
        return rows[0]!.record;
      });
      bus.publishWhenStored(stored);
      return (await stored) as unknown as ConversationEventOf<typeof type>;
    },
    async replay(conversationId, after) {
      const { rows } = await db.query<{ record: ConversationEvent }>(
        `SELECT record FROM conversation_events
         WHERE conversation_id = $1 AND position > $2 AND tx < pg_snapshot_xmin(pg_current_snapshot())
         ORDER BY position`,
        [conversationId, after],
      );
      return rows.map((row) => row.record);
    },
  };
}
