/**
 * Conversation events (docs/contract.md, "Events and streams"): `message` (a stored message),
 * `assistant_delta` (reply text as it streams), `agent_tool` (a tool call of the replying agent),
 * `assistant_done` and `agent_error`. Like run
 * events they are appended to a log (`conversations/<id>/events/`) with a stream position
 * from the bus's one clock, then published, so `Last-Event-ID` replays them on the conversation's stream.
 */

import type { AgentToolCall } from '../agents/index.js';
import type { RunStreamEvent } from '../runs/index.js';
import type { EventPublisher } from '../events/index.js';
import type { Store } from '../store/index.js';
import { CONVERSATIONS_COLLECTION, type Message } from './records.js';

export interface ConversationEventFields {
  message: { message: Message };
  /** `messageId`: the user message being answered. */
  assistant_delta: { messageId: string; text: string };
  /** `messageId`: the user message being answered; the call resolved (docs/decisions.md, "Tool activity"). */
  agent_tool: { messageId: string } & AgentToolCall;
  /** `messageId`: the stored reply. */
  assistant_done: { messageId: string; replyTo: string; costUsd: number | null };
  /** `messageId`: the stored error message. */
  agent_error: { messageId: string; replyTo: string; error: string; code: string };
}

export type ConversationEventType = keyof ConversationEventFields;

export type ConversationEventOf<T extends ConversationEventType> = {
  type: T;
  at: string;
  conversationId: string;
  pos: number;
} & ConversationEventFields[T];

export type ConversationEvent = { [T in ConversationEventType]: ConversationEventOf<T> }[ConversationEventType];

/** Everything a stream carries: run events and conversation events. */
export type SvcStreamEvent = RunStreamEvent | ConversationEvent;

export const CONVERSATION_EVENT_TYPES = [
  'message',
  'assistant_delta',
  'agent_tool',
  'assistant_done',
  'agent_error',
] as const satisfies readonly ConversationEventType[];

export const isConversationEvent = (event: { type: string }): event is ConversationEvent =>
  (CONVERSATION_EVENT_TYPES as readonly string[]).includes(event.type) && !('runId' in event);

export interface ConversationEventLog {
  /** Persists, then publishes (in position order with every other stream). */
  emit<T extends ConversationEventType>(conversationId: string, type: T, fields: ConversationEventFields[T]): Promise<ConversationEventOf<T>>;
  /** This conversation's events after stream position `after`, in order. */
  replay(conversationId: string, after: number): Promise<ConversationEvent[]>;
}

/** Events per chunk file of a conversation's event log. */
export const EVENT_CHUNK = 1000;

/**
 * Each conversation's events are JSON lines in chunk files named by the position of their first
 * event (`conversations/<id>/events/<pos>.jsonl`), a new one every EVENT_CHUNK events (and after a
 * restart): a replay after position P reads the chunk holding P and those after it, never the
 * whole history of a long conversation (reply deltas make it the largest log of all).
 */
export function openConversationEventLog(store: Store, bus: EventPublisher<ConversationEvent>): ConversationEventLog {
  const log = store.log<ConversationEvent>(CONVERSATIONS_COLLECTION);
  const current = new Map<string, { first: number; count: number }>();
  const key = (conversationId: string, first: number) => `${conversationId}/events/${first}`;
  return {
    async emit(conversationId, type, fields) {
      const event = { type, at: new Date().toISOString(), conversationId, pos: bus.nextPosition(), ...fields } as ConversationEventOf<typeof type>;
      let chunk = current.get(conversationId);
      if (!chunk || chunk.count >= EVENT_CHUNK) current.set(conversationId, (chunk = { first: event.pos, count: 0 }));
      chunk.count++;
      // As run events are (and as on PostgreSQL): the log gives the position as the append is asked,
      // and what it stored is published in position order.
      const stored = log.append(key(conversationId, chunk.first), event as ConversationEvent).then(() => event as ConversationEvent);
      bus.publishWhenStored(stored);
      return (await stored) as unknown as ConversationEventOf<typeof type>;
    },
    async replay(conversationId, after) {
      const firsts = (await log.keys(`${conversationId}/events`)).map((name) => Number(name.slice(name.lastIndexOf('/') + 1))).sort((a, b) => a - b);
      // The last chunk that starts at or before `after` may hold later events; every later chunk does.
      const from = Math.max(
        0,
        firsts.findLastIndex((first) => first <= after),
      );
      const events: ConversationEvent[] = [];
      for (const first of firsts.slice(from)) for (const event of await log.read(key(conversationId, first))) if (event.pos > after) events.push(event);
      return events.sort((a, b) => a.pos - b.pos);
    },
  };
}
