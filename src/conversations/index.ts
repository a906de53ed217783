/**
 * Conversations with the AI orchestrator: records and messages, their events, the service the API
 * calls, the orchestrator that answers, and the worker conversation a run gets.
 */
export { ConversationService, MESSAGE_MAX_BYTES, TITLE_MAX } from './service.js';
export { openConversationRepositories, type ConversationRepositories } from './repository.js';
export {
  openConversationEventLog,
  type ConversationEventLog,
  isConversationEvent,
  CONVERSATION_EVENT_TYPES,
  type ConversationEvent,
  type ConversationEventType,
  type SvcStreamEvent,
} from './events.js';
export { ConversationSchema, MessageSchema, MESSAGE_ROLES, type Conversation, type Message } from './records.js';
export type { ConversationDeps, RunOutcomeEvent } from './ports.js';
export { HELP_TEXT } from './slash-commands.js';
export type { StoredMessage } from './records.js';
export { EngineConversations } from './run-conversations.js';

// Only with SVC_DATABASE_URL: loaded on first use, so the file store never loads pg (docs/decisions.md, "Footprint").
export const loadPostgresConversations = () => import('./postgres-repository.js');
export const loadPostgresConversationEvents = () => import('./postgres-events.js');
