/**
 * Conversation events (docs/decisions.md, Events and streams): `message` (a stored message),
 * `assistant_delta` (reply text as it streams), `assistant_done` and `agent_error`. Like run
 * events they are appended to a log (`conversations/<id>/events.jsonl`) with a stream position
 * from the bus's one clock, then published, so `Last-Event-ID` replays them on the conversation's stream.
 */

import type { RunStreamEvent } from '../engine/events.js';
import type { EventPublisher } from '../events/bus.js';
import type { Store } from '../store/index.js';
import { CONVERSATIONS_COLLECTION, type Message } from './records.js';

export interface ConversationEventFields {
  message: { message: Message };
  /** `messageId`: the user message being answered. */
  assistant_delta: { messageId: string; text: string };
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

export const CONVERSATION_EVENT_TYPES = ['message', 'assistant_delta', 'assistant_done', 'agent_error'] as const satisfies readonly ConversationEventType[];

export const isConversationEvent = (event: { type: string }): event is ConversationEvent =>
  (CONVERSATION_EVENT_TYPES as readonly string[]).includes(event.type) && !('runId' in event);

export interface ConversationEventLog {
  /** Persists, then publishes (in position order with every other stream). */
  emit<T extends ConversationEventType>(conversationId: string, type: T, fields: ConversationEventFields[T]): Promise<ConversationEventOf<T>>;
  /** This conversation's events after stream position `after`, in order. */
  replay(conversationId: string, after: number): Promise<ConversationEvent[]>;
}

export function openConversationEventLog(store: Store, bus: EventPublisher<ConversationEvent>): ConversationEventLog {
  const log = store.log<ConversationEvent>(CONVERSATIONS_COLLECTION);
  const key = (conversationId: string) => `${conversationId}/events`;
  return {
    async emit(conversationId, type, fields) {
      const event = { type, at: new Date().toISOString(), conversationId, pos: bus.nextPosition(), ...fields } as ConversationEventOf<typeof type>;
      const appended = log.append(key(conversationId), event as ConversationEvent);
      bus.publishWhenPersisted(appended, event as ConversationEvent);
      await appended;
      return event;
    },
    async replay(conversationId, after) {
      return (await log.read(key(conversationId))).filter((event) => event.pos > after);
    },
  };
}
