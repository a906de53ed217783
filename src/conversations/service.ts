/**
 * Conversations (docs/contract.md, "Conversations"): create, list, read, rename, soft delete,
 * messages paged by cursor, and send — the user message is stored (and marked pending) before
 * the 202, then answered by the orchestrator.
 */

import type { Permissions } from '../shared/permissions.js';
import type { AssistantName } from '../config/index.js';
import { DomainError } from '../shared/errors.js';
import { isSettlingEvent } from '../runs/index.js';
import type { ConversationEvent, SvcStreamEvent } from './events.js';
import { Orchestrator } from './orchestrator.js';
import type { ConversationDeps, RunOutcomeEvent } from './ports.js';
import { conversationView, messageView, newConversationRecord, type Conversation, type ConversationRecord, type Message } from './records.js';

export const MESSAGE_MAX_BYTES = 100 * 1024;
export const TITLE_MAX = 200;

export class ConversationService {
  readonly orchestrator: Orchestrator;

  constructor(private readonly deps: ConversationDeps) {
    this.orchestrator = new Orchestrator(deps);
  }

  async #record(id: string): Promise<ConversationRecord> {
    const record = await this.deps.repositories.conversations.get(id);
    if (!record) throw new DomainError('conversation_not_found', `No conversation '${id}'.`);
    return record;
  }

  async create(input: {
    workspace_id?: string | undefined;
    title?: string | undefined;
    assistant?: AssistantName | undefined;
    permissions?: Permissions | undefined;
  }): Promise<Conversation> {
    // Kept by its full id, whatever the user named it by.
    const workspaceId = input.workspace_id ? await this.deps.workspaces.idOf(input.workspace_id) : null;
    // Said now rather than at its first message: an assistant the configuration does not have.
    if (input.assistant) await this.deps.assistants.launchOf(input.assistant);
    const record = newConversationRecord({
      workspace_id: workspaceId,
      title: input.title ?? null,
      assistant: input.assistant ?? null,
      permissions: input.permissions ?? null,
    });
    await this.deps.repositories.conversations.insert(record);
    return conversationView(record);
  }

  async list(query: { workspace_id?: string | undefined; include_deleted?: boolean; limit?: number; offset?: number }) {
    const page = await this.deps.repositories.conversations.list({
      ...(query.workspace_id ? { workspaceId: query.workspace_id } : {}),
      includeDeleted: query.include_deleted ?? false,
      limit: query.limit ?? 50,
      offset: query.offset ?? 0,
    });
    return { conversations: page.items.map(conversationView), total: page.total };
  }

  async get(id: string): Promise<Conversation> {
    return conversationView(await this.#record(id));
  }

  async rename(id: string, title: string): Promise<Conversation> {
    const record = await this.#record(id);
    const next = await this.deps.repositories.conversations.update(record.id, { title, updated_at: new Date().toISOString() });
    return conversationView(next!);
  }

  /** Soft delete: hidden from lists, still readable, takes no new messages. Deleting again is a no-op. */
  async delete(id: string): Promise<Conversation> {
    const record = await this.#record(id);
    if (record.deleted_at) return conversationView(record);
    const at = new Date().toISOString();
    return conversationView((await this.deps.repositories.conversations.update(record.id, { deleted_at: at, updated_at: at }))!);
  }

  async messages(id: string, query: { limit: number; before?: string | undefined }): Promise<{ messages: Message[]; next_before: string | null }> {
    const record = await this.#record(id);
    const page = await this.deps.repositories.messages.page(record.id, { limit: query.limit, ...(query.before ? { before: query.before } : {}) });
    if (!page)
      throw new DomainError('invalid_request', `'${query.before}' is no message of conversation ${record.id}.`, [
        { path: 'before', message: 'unknown message id' },
      ]);
    return { messages: page.messages.map(messageView), next_before: page.nextBefore };
  }

  /** Stores the user message (durable, and pending until answered), then queues it; answers at once. */
  async send(id: string, text: string): Promise<{ accepted: true; messageId: string }> {
    const record = await this.#record(id);
    if (record.deleted_at) throw new DomainError('conversation_deleted', `Conversation ${record.id} was deleted; it takes no new messages.`);
    // Marked pending before it is stored, so that a stored message is always either answered or pending.
    const reserved = await this.deps.repositories.accept(record.id, { updated_at: new Date().toISOString() });
    const message = await this.orchestrator.post(record.id, 'user', text, {}, reserved);
    await this.orchestrator.enqueue(record.id, message.id);
    return { accepted: true, messageId: message.id };
  }

  /**
   * The ids a stream named `id` answers to: the conversation's two ids when it exists (so runs
   * linked by either id, and its own events, are on it), else just `id`.
   */
  async streamIds(id: string): Promise<{ conversationId: string | null; ids: string[] }> {
    const record = await this.deps.repositories.conversations.get(id);
    if (!record) return { conversationId: null, ids: [id] };
    return { conversationId: record.id, ids: [record.id, record.platform_conversation_id] };
  }

  replay(conversationId: string, after: number): Promise<ConversationEvent[]> {
    return this.deps.events.replay(conversationId, after);
  }

  /** Called for every event of this server's own runs (the composition root subscribes it): a run linked to a conversation posts its outcome there. */
  runEvent(event: SvcStreamEvent): void {
    if ('runId' in event && event.type !== 'run_deleted' && isSettlingEvent(event)) this.runSettled(event);
  }

  /** Called for every settling run event. */
  runSettled(event: RunOutcomeEvent): void {
    void this.orchestrator
      .postRunOutcome(event)
      .catch((error: unknown) => this.deps.logger.error('conversation.run_outcome_failed', { runId: event.runId, error: (error as Error).message }));
  }
}
