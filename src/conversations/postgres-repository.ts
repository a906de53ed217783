/**
 * Conversations and their messages on PostgreSQL (docs/decisions.md, "PostgreSQL store"): the same
 * interfaces as the file store's (repository.ts), answered by indexed queries. Changes to a
 * conversation's pending list are single UPDATE statements, so concurrent sends on any number of
 * servers lose none; a message's place comes from one atomic upsert per conversation
 * (`message_places`), so no two servers hand out the same place.
 */

import { inOrderByKey } from '../shared/in-order-by-key.js';
import { asJson, selectPage, type PostgresDatabase, type Queryable } from '../store/postgres/index.js';
import type { ConversationRecord, StoredMessage } from './records.js';
import { messageId, type ConversationRepositories, type ConversationRepository, type MessageRepository, type ReservedMessage } from './repository.js';

/**
 * A server adding a message takes the conversation to answer it when no server holds it
 * (coordination/postgres-answering.ts): a conversation with pending messages always has a holder.
 */
const ADD_PENDING_HOLDER = 'coalesce(answering_server, $4::text)';

/** The record's pending ids as a jsonb array, whatever an older record holds there. */
const PENDING = "CASE WHEN jsonb_typeof(record->'pending_message_ids') = 'array' THEN record->'pending_message_ids' ELSE '[]'::jsonb END";

type CallOrder = ReturnType<typeof inOrderByKey>;

function conversationsIn(db: PostgresDatabase, serverId: string | null, inOrder: CallOrder): ConversationRepository {
  const one = async (sql: string, params: unknown[]) => (await db.query<{ record: ConversationRecord }>(sql, params)).rows[0]?.record;
  /**
   * `{...current, ...patch, id, pending_message_ids: <pending>}` in one statement ($1 id, $2 patch,
   * $3 message id, $4 this server); `holder` sets `answering_server` in the same statement.
   */
  const changePending =
    (pending: string, holder?: string) =>
    (id: string, message: string, patch: Partial<Omit<ConversationRecord, 'id'>> = {}) =>
      inOrder(id, () =>
        one(
          `UPDATE conversations SET record = record || $2::jsonb || jsonb_build_object('id', id, 'pending_message_ids', ${pending})
             ${holder ? `, answering_server = ${holder}` : ''}
           WHERE id = $1 RETURNING record`,
          holder ? [id, asJson(patch), message, serverId] : [id, asJson(patch), message],
        ),
      );
  return {
    async insert(record) {
      // Replaces one of the same id, as the file store's put does.
      await inOrder(record.id, () =>
        db.query('INSERT INTO conversations (id, record) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record', [record.id, asJson(record)]),
      );
    },
    // The id first, as the file store looks: a platform id equal to another conversation's id loses.
    // Lookups by one id resolve in the order asked, as the file store's do: concurrent sends take
    // their places in the order they arrived only if their lookups do not overtake one another.
    get: (idOrPlatformId) =>
      inOrder(idOrPlatformId, () =>
        one('SELECT record FROM conversations WHERE id = $1 OR platform_conversation_id = $1 ORDER BY (id = $1) DESC LIMIT 1', [idOrPlatformId]),
      ),
    list(filter = {}) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (!filter.includeDeleted) where.push('NOT deleted');
      if (filter.workspaceId) where.push(`workspace_id = $${params.push(filter.workspaceId)}`);
      return selectPage<ConversationRecord>(db, {
        from: 'conversations',
        where,
        params,
        orderBy: 'created_at DESC, id DESC',
        limit: filter.limit ?? 50,
        offset: filter.offset ?? 0,
      });
    },
    update: (id, patch) =>
      inOrder(id, () =>
        one("UPDATE conversations SET record = record || $2::jsonb || jsonb_build_object('id', id) WHERE id = $1 RETURNING record", [id, asJson(patch)]),
      ),
    withPending: async () =>
      (await db.query<{ record: ConversationRecord }>('SELECT record FROM conversations WHERE has_pending ORDER BY created_at, id')).rows.map(
        (row) => row.record,
      ),
    addPending: changePending(`${PENDING} || to_jsonb($3::text)`, ADD_PENDING_HOLDER),
    // Order kept: the remaining ids in their places.
    removePending: changePending(
      `coalesce((SELECT jsonb_agg(e.value ORDER BY e.place) FROM jsonb_array_elements(${PENDING}) WITH ORDINALITY AS e(value, place) WHERE e.value <> to_jsonb($3::text)), '[]'::jsonb)`,
    ),
  };
}

function messagesIn(db: PostgresDatabase): MessageRepository {
  // Places of one conversation are taken, and its messages stored, in the order asked: the pool
  // would otherwise let a later call's statement overtake an earlier one's, and the orchestrator
  // queues messages for answering in the order their appends resolve.
  const reserving = inOrderByKey();
  const appending = inOrderByKey();
  const takePlace = (conversationId: string) => takePlaceWith(db, conversationId);
  const get = async (conversationId: string, id: string) =>
    (await db.query<{ record: StoredMessage }>('SELECT record FROM messages WHERE conversation_id = $1 AND id = $2', [conversationId, id])).rows[0]?.record;

  return {
    reserve: (conversationId) => reserving(conversationId, () => takePlace(conversationId)),
    append(conversationId, fields, reserved) {
      return appending(conversationId, async () => {
        const { id, seq } = reserved ?? (await reserving(conversationId, () => takePlace(conversationId)));
        const message: StoredMessage = { id, conversation_id: conversationId, ...fields, seq };
        await db.query('INSERT INTO messages (conversation_id, seq, id, record) VALUES ($1, $2, $3, $4)', [conversationId, seq, id, asJson(message)]);
        return message;
      });
    },
    get,
    replyTo: async (conversationId, id) =>
      (
        await db.query<{ record: StoredMessage }>('SELECT record FROM messages WHERE conversation_id = $1 AND reply_to = $2 ORDER BY seq LIMIT 1', [
          conversationId,
          id,
        ])
      ).rows[0]?.record,
    async page(conversationId, { limit, before }) {
      let end = Number.MAX_SAFE_INTEGER;
      if (before !== undefined) {
        const anchor = await get(conversationId, before);
        if (!anchor) return undefined;
        end = anchor.seq - 1;
      }
      // Places reserved but never written are simply absent: the page reads past them.
      const { rows } = await db.query<{ record: StoredMessage }>(
        'SELECT record FROM messages WHERE conversation_id = $1 AND seq <= $2 ORDER BY seq DESC LIMIT $3',
        [conversationId, Math.min(end, 2 ** 31 - 1), limit],
      );
      const messages = rows.map((row) => row.record).reverse();
      const oldest = messages[0];
      return { messages, nextBefore: oldest && oldest.seq > 1 ? oldest.id : null };
    },
  };
}

/** The next place of a conversation's messages: one atomic upsert, so no two servers take the same. */
async function takePlaceWith(db: Queryable, conversationId: string): Promise<ReservedMessage> {
  const { rows } = await db.query<{ seq: number }>(
    `INSERT INTO message_places (conversation_id, last_seq) VALUES ($1, 1)
     ON CONFLICT (conversation_id) DO UPDATE SET last_seq = message_places.last_seq + 1 RETURNING last_seq AS seq`,
    [conversationId],
  );
  const seq = rows[0]!.seq;
  return { id: messageId(seq), seq };
}

/**
 * The PostgreSQL implementation of the conversation repositories. `serverId`: the server whose
 * sends take a conversation no server holds for answering (coordination/postgres-answering.ts).
 */
export function postgresConversationRepositories(db: PostgresDatabase, serverId: string | null = null): ConversationRepositories {
  // Changes of one conversation resolve in the order they were asked (the repository's contract):
  // a pool would otherwise let a later call's statement overtake an earlier one's.
  const inOrder = inOrderByKey();
  return {
    conversations: conversationsIn(db, serverId, inOrder),
    messages: messagesIn(db),
    // The conversation's row is locked before the place is taken and held until the message is
    // pending: sends on several servers then take places in the order they join the pending list,
    // which is the order they are answered in.
    accept: (conversationId, patch = {}) =>
      inOrder(conversationId, () =>
        db.transaction(async (client) => {
          await client.query('SELECT 1 FROM conversations WHERE id = $1 FOR UPDATE', [conversationId]);
          const reserved = await takePlaceWith(client, conversationId);
          await client.query(
            `UPDATE conversations SET record = record || $2::jsonb || jsonb_build_object('id', id, 'pending_message_ids', ${PENDING} || to_jsonb($3::text)),
               answering_server = ${ADD_PENDING_HOLDER}
             WHERE id = $1`,
            [conversationId, asJson(patch), reserved.id, serverId],
          );
          return reserved;
        }),
      ),
  };
}
