/**
 * Where conversations and their messages are kept: async, query-shaped repositories (insert, get,
 * list with filters and paging, update; messages appended and paged by cursor), so nothing outside
 * this file scans a collection and a database implementation can take the file store's place.
 *
 * Messages grow without bound, so they are never loaded whole: each conversation's messages are
 * JSON lines in chunk files of MESSAGE_CHUNK messages (`conversations/<id>/messages/<n>.jsonl`),
 * and a message's id carries its place in the conversation, so a page `before` a message reads at
 * most the few chunks it spans however long the history is (docs/decisions.md, "Conversations").
 */

import { randomBytes } from 'node:crypto';
import type { AppendLog, Collection, PutOptions, Store } from '../store/index.js';
import { CONVERSATIONS_COLLECTION, openConversations, type ConversationRecord, type Message, type StoredMessage } from './records.js';

export interface ConversationFilter {
  workspaceId?: string;
  includeDeleted?: boolean;
  limit?: number;
  offset?: number;
}

/**
 * Part of the contract on every store (test/store/contract/conversations.ts): the calls of one
 * conversation resolve, and take effect, in the order they were asked — a conversation's sends are
 * queued for answering in the order their messages were stored.
 */
export interface ConversationRepository {
  /**
   * Durable when resolved, unless `{ sync: false }`: then it survives a crash of the server but
   * maybe not a power loss (a run's worker conversation: docs/decisions.md, "Fewer writes between two nodes"). A
   * database commit is durable either way.
   */
  insert(record: ConversationRecord, options?: PutOptions): Promise<void>;
  /** By `id` or by `platform_conversation_id`. */
  get(idOrPlatformId: string): Promise<ConversationRecord | undefined>;
  /** Newest first. */
  list(filter?: ConversationFilter): Promise<{ items: ConversationRecord[]; total: number }>;
  update(id: string, patch: Partial<Omit<ConversationRecord, 'id'>>): Promise<ConversationRecord | undefined>;
  /** Conversations with messages accepted and not answered (a restart answers them). */
  withPending(): Promise<ConversationRecord[]>;
  /** Adds a message to the pending list (read and written in one step: concurrent sends lose none). */
  addPending(id: string, messageId: string, patch?: Partial<Omit<ConversationRecord, 'id'>>): Promise<ConversationRecord | undefined>;
  /** Takes a message off the pending list, in one step, with other changes (its new agent session). */
  removePending(id: string, messageId: string, patch?: Partial<Omit<ConversationRecord, 'id'>>): Promise<ConversationRecord | undefined>;
}

export interface MessagePage {
  messages: StoredMessage[];
  /** The oldest message of this page when older ones exist: the `before` of the next page. */
  nextBefore: string | null;
}

export interface ReservedMessage {
  id: string;
  seq: number;
}

export interface MessageRepository {
  /** Gives the message its id and place; durable when resolved. Calls of one conversation keep their order. */
  append(conversationId: string, message: Omit<Message, 'id' | 'conversation_id'>, reserved?: ReservedMessage): Promise<StoredMessage>;
  /** Takes the next place (and id) now, for an `append` that follows: the id can be recorded before the message is. */
  reserve(conversationId: string): Promise<ReservedMessage>;
  /** Up to `limit` messages, oldest first, before the message `before` (or the newest). `undefined` when `before` is no message of it. */
  page(conversationId: string, options: { limit: number; before?: string }): Promise<MessagePage | undefined>;
  get(conversationId: string, messageId: string): Promise<StoredMessage | undefined>;
  /** The stored answer to a message (`metadata.replyTo`), looked for from its place on. */
  replyTo(conversationId: string, messageId: string): Promise<StoredMessage | undefined>;
}

/** Messages per chunk file. */
export const MESSAGE_CHUNK = 100;

/** `msg_<seq base 36>_<random>`: the place is in the id, so a cursor needs no index. */
export const messageId = (seq: number) => `msg_${seq.toString(36)}_${randomBytes(4).toString('hex')}`;
const seqOf = (id: string): number | undefined => {
  const match = /^msg_([0-9a-z]+)_[0-9a-f]+$/.exec(id);
  const seq = match ? Number.parseInt(match[1]!, 36) : Number.NaN;
  return Number.isSafeInteger(seq) && seq > 0 ? seq : undefined;
};
const chunkOf = (seq: number) => Math.floor((seq - 1) / MESSAGE_CHUNK);
const chunkKey = (conversationId: string, chunk: number) => `${conversationId}/messages/${String(chunk).padStart(6, '0')}`;

function conversationsOn(collection: Collection<ConversationRecord>): ConversationRepository {
  // Synchronous from read to put (the in-memory record changes at once), so two changes never race.
  const changePending = async (id: string, change: (ids: string[]) => string[], patch: Partial<Omit<ConversationRecord, 'id'>>) => {
    const current = collection.get(id);
    if (!current) return undefined;
    const next = { ...current, ...patch, id, pending_message_ids: change(current.pending_message_ids ?? []) };
    await collection.put(next);
    return next;
  };
  return {
    insert: (record, options) => collection.put(record, options),
    get: async (id) => collection.get(id) ?? collection.find((c) => c.platform_conversation_id === id),
    async list(filter = {}) {
      const matches = collection
        .filter((c) => (filter.includeDeleted || c.deleted_at === null) && (!filter.workspaceId || c.workspace_id === filter.workspaceId))
        .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
      const offset = filter.offset ?? 0;
      return { items: matches.slice(offset, offset + (filter.limit ?? 50)), total: matches.length };
    },
    async update(id, patch) {
      const current = collection.get(id);
      if (!current) return undefined;
      const next = { ...current, ...patch, id };
      await collection.put(next);
      return next;
    },
    withPending: async () => collection.filter((c) => (c.pending_message_ids?.length ?? 0) > 0),
    addPending: (id, messageId, patch = {}) => changePending(id, (ids) => [...ids, messageId], patch),
    removePending: (id, messageId, patch = {}) => changePending(id, (ids) => ids.filter((m) => m !== messageId), patch),
  };
}

function messagesOn(log: AppendLog<StoredMessage>): MessageRepository {
  // The last place used per conversation, found once from its newest chunk.
  const lastSeq = new Map<string, number>();
  const loading = new Map<string, Promise<number>>();

  const readChunk = (conversationId: string, chunk: number) => log.read(chunkKey(conversationId, chunk));

  const loadLast = (conversationId: string): Promise<number> => {
    let pending = loading.get(conversationId);
    if (!pending) {
      pending = (async () => {
        const chunks = (await log.keys(`${conversationId}/messages`)).map((key) => Number(key.slice(key.lastIndexOf('/') + 1)));
        if (chunks.length === 0) return 0;
        const newest = await readChunk(conversationId, Math.max(...chunks));
        return newest.reduce((max, message) => Math.max(max, message.seq), 0);
      })();
      loading.set(conversationId, pending);
    }
    return pending;
  };

  const last = async (conversationId: string): Promise<number> => {
    if (!lastSeq.has(conversationId)) {
      const found = await loadLast(conversationId);
      if (!lastSeq.has(conversationId)) lastSeq.set(conversationId, found);
    }
    return lastSeq.get(conversationId)!;
  };

  const range = async (conversationId: string, from: number, to: number): Promise<StoredMessage[]> => {
    if (to < from) return [];
    const out: StoredMessage[] = [];
    for (let chunk = chunkOf(from); chunk <= chunkOf(to); chunk++) {
      for (const message of await readChunk(conversationId, chunk)) if (message.seq >= from && message.seq <= to) out.push(message);
    }
    return out.sort((a, b) => a.seq - b.seq);
  };

  return {
    async reserve(conversationId) {
      // Places are taken in call order: after the (shared) first load, the next place is taken synchronously.
      if (!lastSeq.has(conversationId)) await last(conversationId);
      const seq = lastSeq.get(conversationId)! + 1;
      lastSeq.set(conversationId, seq);
      return { id: messageId(seq), seq };
    },
    async append(conversationId, fields, reserved) {
      const { id, seq } = reserved ?? (await this.reserve(conversationId));
      const message: StoredMessage = { id, conversation_id: conversationId, ...fields, seq };
      await log.append(chunkKey(conversationId, chunkOf(seq)), message);
      return message;
    },
    async get(conversationId, id) {
      const seq = seqOf(id);
      if (seq === undefined) return undefined;
      return (await readChunk(conversationId, chunkOf(seq))).find((message) => message.id === id);
    },
    async replyTo(conversationId, id) {
      const seq = seqOf(id);
      if (seq === undefined) return undefined;
      const end = await last(conversationId);
      for (let chunk = chunkOf(seq); chunk <= chunkOf(Math.max(seq, end)); chunk++) {
        const found = (await readChunk(conversationId, chunk)).find((message) => message.metadata?.replyTo === id);
        if (found) return found;
      }
      return undefined;
    },
    async page(conversationId, { limit, before }) {
      let end = await last(conversationId);
      if (before !== undefined) {
        const anchor = await this.get(conversationId, before);
        if (!anchor) return undefined;
        end = anchor.seq - 1;
      }
      // A place can be reserved and never written (a crash between the two): such gaps are read
      // past, so a page is only short at the very beginning of the history.
      const messages: StoredMessage[] = [];
      for (let to = end; messages.length < limit && to >= 1;) {
        const from = Math.max(1, to - (limit - messages.length) + 1);
        messages.unshift(...(await range(conversationId, from, to)));
        to = from - 1;
      }
      const oldest = messages[0];
      return { messages, nextBefore: oldest && oldest.seq > 1 ? oldest.id : null };
    },
  };
}

export interface ConversationRepositories {
  conversations: ConversationRepository;
  messages: MessageRepository;
  /**
   * What a send does before storing its message: takes the next place and marks that message
   * pending, with a patch of the conversation. Places and the pending list keep one order, also
   * across servers sharing a database, so messages are answered in their places' order.
   */
  accept(conversationId: string, patch?: Partial<Omit<ConversationRecord, 'id'>>): Promise<ReservedMessage>;
}

/** The embedded (JSON-file) implementation. */
export async function openConversationRepositories(store: Store): Promise<ConversationRepositories> {
  const conversations = conversationsOn(await openConversations(store));
  const messages = messagesOn(store.log<StoredMessage>(CONVERSATIONS_COLLECTION));
  return {
    conversations,
    messages,
    // One process per store, whose calls of one conversation resolve in call order: the two steps keep one order.
    async accept(conversationId, patch = {}) {
      const reserved = await messages.reserve(conversationId);
      await conversations.addPending(conversationId, reserved.id, patch);
      return reserved;
    },
  };
}
