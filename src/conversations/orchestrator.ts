/**
 * The orchestrator (docs/decisions.md, "Conversations"): answers the messages of one conversation
 * one at a time, in order, and different conversations in parallel up to
 * `SVC_MAX_CONCURRENT_CONVERSATIONS`. A message is a slash command (answered here) or goes to the
 * conversation's assistant, whose reply streams as `assistant_delta` events, is stored, then
 * announced with `assistant_done`; a failure is stored as a system message plus `agent_error`.
 *
 * The messages to answer are the conversation's pending list in the store, not a queue of this
 * process: a send wakes the conversation, and a turn answers its oldest pending message if this
 * process holds the conversation (the coordination's `answering`: always, for one process alone;
 * on a shared database, the one server that claimed it, whichever server accepted the message).
 */

import { AgentError } from '../agents/index.js';
import type { TakenConversation } from '../coordination/index.js';
import type { ConversationDeps, RunOutcomeEvent } from './ports.js';
import { messageView, type ConversationRecord, type Message, type MessageMetadata, type StoredMessage } from './records.js';
import { replyWithAgent } from './reply.js';
import type { ReservedMessage } from './repository.js';
import { answerCommand, isSlashCommand } from './slash-commands.js';

/** How long a holder waits for a pending message to be stored by the process that accepted it. */
const STORED_WAIT_MS = 30_000;

export class Orchestrator {
  /** Conversations that may have messages to answer and none being answered, in arrival order. */
  #ready: string[] = [];
  #busy = new Set<string>();
  /** Conversations woken while a turn of theirs ran (a send meanwhile): they get another turn. */
  #woken = new Set<string>();
  #running = new Map<string, Promise<void>>();
  #controllers = new Set<AbortController>();
  #closed = false;
  /** Taken over from a gone process, with the messages pending then (answered as a restart answers them). */
  #orphans = new Map<string, string[]>();
  /** Messages waiting behind the one being answered, as last read. */
  #waiting = new Map<string, number>();

  constructor(private readonly deps: ConversationDeps) {}

  /** Stores a message and announces it on the conversation's stream. */
  async post(
    conversationId: string,
    role: Message['role'],
    content: string,
    metadata: MessageMetadata = {},
    reserved?: ReservedMessage,
  ): Promise<StoredMessage> {
    const message = await this.deps.repositories.messages.append(conversationId, { role, content, created_at: new Date().toISOString(), metadata }, reserved);
    await this.deps.events.emit(conversationId, 'message', { message: messageView(message) });
    return message;
  }

  /**
   * An accepted (stored, pending) user message: whoever answers the conversation is told (a process
   * that answers nothing, the CLI's offline mode on a database, tells the servers), and the
   * conversation is woken here.
   */
  async enqueue(conversationId: string, messageId: string): Promise<void> {
    if (this.#closed) return;
    // A lost notification only delays: every server's lease heartbeat looks for waiting conversations too.
    await this.deps.answering
      .accepted(conversationId)
      .catch((error: unknown) => this.deps.logger.warn('conversation.hand_off_failed', { conversationId, messageId, error: (error as Error).message }));
    this.#wake(conversationId);
  }

  queued(conversationId: string): number {
    return this.#waiting.get(conversationId) ?? 0;
  }

  get stats() {
    return { answering: this.#running.size, waiting: this.#ready.length, max: this.deps.limits.maxConcurrentConversations };
  }

  /** The conversation may have messages to answer (a send, a takeover). */
  #wake(conversationId: string): void {
    if (this.#closed) return;
    this.#woken.add(conversationId);
    if (!this.#busy.has(conversationId) && !this.#ready.includes(conversationId)) this.#ready.push(conversationId);
    this.#pump();
  }

  #pump(): void {
    while (!this.#closed && this.#running.size < this.deps.limits.maxConcurrentConversations && this.#ready.length > 0) {
      const conversationId = this.#ready.shift()!;
      this.#woken.delete(conversationId);
      this.#busy.add(conversationId);
      const done = this.#turn(conversationId)
        .catch((error: unknown) => {
          this.deps.logger.error('conversation.answer_failed', { conversationId, error: (error as Error).message });
          // The store failed us mid-turn: the message is still pending and this process may still hold the conversation, so it tries again.
          setTimeout(() => this.#wake(conversationId), 1000).unref();
          return false;
        })
        .then((more) => {
          this.#running.delete(conversationId);
          this.#busy.delete(conversationId);
          // One message per turn: a long conversation does not hold a slot while others wait.
          if (more || this.#woken.has(conversationId)) this.#ready.push(conversationId);
          this.#pump();
        });
      this.#running.set(conversationId, done);
    }
  }

  /**
   * One message of a conversation this process holds, the oldest pending one (whichever process
   * accepted it); resolves to whether more may wait. With nothing pending the conversation is let
   * go — unless a message arrived meanwhile, which is then answered here.
   */
  async #turn(conversationId: string): Promise<boolean> {
    const { answering } = this.deps;
    const { conversations, messages } = this.deps.repositories;
    const orphaned = this.#orphans.get(conversationId);
    if (orphaned) {
      this.#orphans.delete(conversationId);
      await this.#recoverMessages(conversationId, orphaned);
      return true;
    }
    for (;;) {
      if (this.#closed || !(await answering.claim(conversationId))) return false;
      const conversation = await conversations.get(conversationId);
      if (!conversation) return false;
      const [head, ...behind] = conversation.pending_message_ids ?? [];
      if (head === undefined) {
        if (await answering.release(conversationId)) return false;
        continue;
      }
      this.#waiting.set(conversationId, behind.length);
      // Answered by this process, which then failed to note it: the answer stands.
      if (!(await this.#stored(conversationId, head)) || (await messages.replyTo(conversationId, head))) {
        await conversations.removePending(conversationId, head);
        continue;
      }
      await this.#answer(conversationId, head);
      this.#waiting.delete(conversationId);
      return true;
    }
  }

  /**
   * A pending message is stored by the process that accepted it just after it is marked pending,
   * so the holder may see it before it exists. Undefined when it never comes (its process stopped
   * in between: nothing to answer).
   */
  async #stored(conversationId: string, messageId: string) {
    for (const deadline = Date.now() + STORED_WAIT_MS; ; await new Promise((resolve) => setTimeout(resolve, 50))) {
      const message = await this.deps.repositories.messages.get(conversationId, messageId);
      if (message || Date.now() > deadline || this.#closed) return message;
    }
  }

  async #answer(conversationId: string, messageId: string): Promise<void> {
    const { repositories } = this.deps;
    const conversation = await repositories.conversations.get(conversationId);
    const message = await repositories.messages.get(conversationId, messageId);
    if (!conversation || !message) return;
    if (conversation.deleted_at) {
      // Deleted while the message waited its turn: nothing more is done for it (no agent, no run).
      const stored = await this.post(conversationId, 'system', 'This conversation was deleted before the message was answered; it was not handled.', {
        error: 'conversation deleted',
        code: 'conversation_deleted',
        replyTo: messageId,
      });
      await this.#settle(conversation.id, messageId);
      await this.deps.events.emit(conversationId, 'agent_error', {
        messageId: stored.id,
        replyTo: messageId,
        error: 'conversation deleted',
        code: 'conversation_deleted',
      });
      return;
    }
    if (isSlashCommand(message.content)) {
      const answer = await answerCommand(this.deps, conversation, message.content, this.queued(conversationId));
      const stored = await this.post(conversationId, 'system', answer.content, { ...answer.metadata, replyTo: messageId });
      await this.#settle(conversation.id, messageId);
      if (answer.failed) await this.deps.events.emit(conversationId, 'agent_error', { messageId: stored.id, replyTo: messageId, ...answer.failed });
      else await this.deps.events.emit(conversationId, 'assistant_done', { messageId: stored.id, replyTo: messageId, costUsd: null });
      return;
    }
    const controller = new AbortController();
    this.#controllers.add(controller);
    try {
      const reply = await replyWithAgent(this.deps, conversation, message, controller.signal);
      if (this.#closed) return; // stopped mid-answer: the next start answers it (recoverInterrupted)
      // This server missed its lease and another took the conversation over (and answered this message as interrupted).
      if (!(await this.deps.answering.holds(conversationId))) {
        this.deps.logger.warn('conversation.answer_dropped', { conversationId, messageId });
        return;
      }
      const stored = await this.post(conversationId, 'assistant', reply.text, {
        costUsd: reply.costUsd,
        model: reply.model,
        tokens: reply.tokens,
        replyTo: messageId,
        ...(reply.tools.toolCalls > 0 ? reply.tools : {}),
        ...reply.sandbox,
      });
      await this.#settle(conversation.id, messageId, reply.session);
      await this.deps.events.emit(conversationId, 'assistant_done', { messageId: stored.id, replyTo: messageId, costUsd: reply.costUsd });
    } catch (error) {
      if (this.#closed) return;
      const code = error instanceof AgentError ? error.code : ((error as { code?: string }).code ?? 'agent_failed');
      const text = (error as Error).message;
      const stored = await this.post(conversationId, 'system', `The assistant could not answer: ${text}`, { error: text, code, replyTo: messageId });
      await this.#settle(conversation.id, messageId);
      await this.deps.events.emit(conversationId, 'agent_error', { messageId: stored.id, replyTo: messageId, error: text, code });
    } finally {
      this.#controllers.delete(controller);
    }
  }

  /** The message is answered: it leaves the pending list; a new agent session is kept for the next message. */
  async #settle(id: string, messageId: string, session?: ConversationRecord['agent_session']): Promise<void> {
    await this.deps.repositories.conversations.removePending(id, messageId, {
      ...(session ? { agent_session: session } : {}),
      updated_at: new Date().toISOString(),
    });
  }

  /**
   * Start: messages accepted but never answered (their process stopped first) get an error message
   * each, so no message is left silent; the conversation goes on. That is what this home's previous
   * process left, for one process alone; on a shared database, what servers that are gone held — at
   * start, and whenever a lease heartbeat finds one — while those another live server answers are
   * left alone, and those nobody holds (sent by a CLI process) are answered as sends are.
   */
  async recoverInterrupted(): Promise<void> {
    const { conversations } = this.deps.repositories;
    await this.deps.answering.start({
      taken: (taken) => this.#adopt(taken),
      waiting: (ids) => ids.forEach((id) => this.#wake(id)),
      leftBehind: async () => (await conversations.withPending()).map((c) => ({ id: c.id, pending: c.pending_message_ids ?? [] })),
    });
  }

  /** Conversations taken over from gone processes are answered as a restart answers them, in turn. */
  #adopt(taken: TakenConversation[]): void {
    for (const { id, pending } of taken) {
      this.#orphans.set(id, pending);
      this.#wake(id);
    }
  }

  async #recoverMessages(conversationId: string, messageIds: string[]): Promise<void> {
    const { conversations, messages } = this.deps.repositories;
    for (const messageId of messageIds) {
      // Marked pending but never stored (the server stopped in between): nothing to answer.
      // Answered, then stopped before the answer was noted: the answer stands (no second one).
      if (!(await messages.get(conversationId, messageId)) || (await messages.replyTo(conversationId, messageId))) {
        await conversations.removePending(conversationId, messageId);
        continue;
      }
      const error = 'svc stopped before this message was answered; send it again.';
      const stored = await this.post(conversationId, 'system', error, { error, code: 'interrupted', replyTo: messageId });
      await conversations.removePending(conversationId, messageId);
      await this.deps.events.emit(conversationId, 'agent_error', { messageId: stored.id, replyTo: messageId, error, code: 'interrupted' });
    }
    if (messageIds.length > 0) this.deps.logger.warn('conversation.interrupted_answered', { conversationId, messages: messageIds.length });
  }

  /** A run linked to a conversation settled: its outcome is posted there as a message. */
  async postRunOutcome(event: RunOutcomeEvent): Promise<void> {
    if (this.#closed || !event.conversationId || event.conversationId === event.platformId) return;
    const conversation = await this.deps.repositories.conversations.get(event.conversationId);
    if (!conversation || conversation.run_id) return;
    const what = `Run ${event.runId} of '${event.workflow}'`;
    const content =
      event.type === 'run_completed'
        ? `${what} completed${typeof event.costUsd === 'number' ? ` (cost $${event.costUsd.toFixed(4)})` : ''}.`
        : event.type === 'run_failed'
          ? `${what} failed: ${event.error ?? 'unknown error'}.`
          : event.type === 'run_paused'
            ? `${what} is paused at '${event.nodeId}': ${event.message ?? ''} (svc approve ${event.runId} / svc reject ${event.runId}).`
            : `${what} ended: ${event.type.replace('run_', '')}.`;
    await this.post(conversation.id, 'system', content, { runId: event.runId, ...(event.type === 'run_failed' ? { error: event.error ?? 'failed' } : {}) });
  }

  /** Resolves when no message is being answered or waits (the CLI without a server). */
  async whenIdle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running.values()]);
  }

  /** Shutdown: agent calls stop; their messages stay pending and are answered with an error on the next start. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const controller of this.#controllers) controller.abort('shutdown');
    await Promise.allSettled([...this.#running.values()]);
  }
}
