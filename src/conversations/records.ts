import * as z from 'zod';
import { TOOLS_DENIED_KEPT } from '../agents/index.js';
import { PERMISSIONS } from '../shared/permissions.js';
import { AssistantNameSchema, type AssistantName } from '../config/index.js';
import { newId } from '../shared/ids.js';
import type { Store } from '../store/index.js';

/** A conversation as the API shows it (docs/contract.md, "Conversations"). */
export const ConversationSchema = z.object({
  id: z.string(),
  platform_conversation_id: z.string().describe('the id streams are named by (`/api/stream/{id}`); paths accept either id'),
  workspace_id: z.string().nullable(),
  title: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  deleted_at: z.string().nullable(),
  run_id: z.string().nullable().describe("set on a run's worker conversation"),
  assistant: AssistantNameSchema.nullable().describe(
    "the agent answering its messages (claude, codex or a configured acp assistant); null: the configuration's default assistant",
  ),
  permissions: z
    .enum(PERMISSIONS)
    .nullable()
    .describe("what its agent may do in its directory (read, edit, full); null: the assistant configuration's (read out of the box)"),
});
export type Conversation = z.infer<typeof ConversationSchema>;

export const MESSAGE_ROLES = ['user', 'assistant', 'system'] as const;

export const MessageMetadataSchema = z
  .object({
    costUsd: z.number().nullable().optional(),
    model: z.string().nullable().optional(),
    tokens: z.object({ input: z.number(), output: z.number(), cachedInput: z.number().optional() }).nullable().optional(),
    runId: z.string().optional(),
    error: z.string().optional(),
    code: z.string().optional(),
    replyTo: z.string().optional().describe('the user message this one answers'),
    command: z.string().optional().describe('the slash command this message answers'),
    toolCalls: z.number().int().optional().describe("an agent reply's tool calls (present when it made any)"),
    toolsDenied: z.array(z.string()).optional().describe(`one-line summaries of the tool calls the agent was refused (the first ${TOOLS_DENIED_KEPT})`),
    toolsDeniedCount: z.number().int().optional().describe('how many tool calls the agent was refused'),
    sandboxDenied: z
      .number()
      .int()
      .optional()
      .describe("a sandboxed agent reply: how many refusals of its sandbox were seen (each a `conversation.sandbox_denied` line in the server's log)"),
    sandboxWarning: z.string().optional().describe("a sandboxed agent reply whose sandbox was weaker than svc's policy: why"),
  })
  .describe(
    'costUsd, model, tokens (agent replies), runId (/run), error and code (failures), toolCalls, toolsDenied and toolsDeniedCount (agent replies that used tools), sandboxDenied and sandboxWarning (sandboxed agent replies)',
  );
export type MessageMetadata = z.infer<typeof MessageMetadataSchema>;

export const MessageSchema = z.object({
  id: z.string(),
  conversation_id: z.string(),
  role: z.enum(MESSAGE_ROLES),
  content: z.string(),
  created_at: z.string(),
  metadata: MessageMetadataSchema,
});
export type Message = z.infer<typeof MessageSchema>;

/** A stored message: the view plus its place in the conversation (1, 2, …), which cursors use. */
export interface StoredMessage extends Message {
  seq: number;
}

/** The stored record: the view plus what only the orchestrator reads. */
export interface ConversationRecord extends Omit<Conversation, 'permissions'> {
  /** Absent in records stored before conversations had permissions: the configuration's apply. */
  permissions?: Conversation['permissions'];
  /**
   * The agent session that continues this conversation (claude `--resume`, codex `exec resume`),
   * kept with the record so a restarted server carries on (docs/decisions.md, "Conversations").
   */
  agent_session?: { assistant: AssistantName; id: string; tokens?: { input: number; output: number } | null } | null;
  /** User messages accepted and not yet answered, oldest first: a restart answers them with an error. */
  pending_message_ids?: string[];
}

export const conversationView = (record: ConversationRecord): Conversation => ({
  id: record.id,
  platform_conversation_id: record.platform_conversation_id,
  workspace_id: record.workspace_id,
  title: record.title,
  created_at: record.created_at,
  updated_at: record.updated_at,
  deleted_at: record.deleted_at,
  run_id: record.run_id ?? null,
  assistant: record.assistant ?? null,
  permissions: record.permissions ?? null,
});

export const messageView = ({ seq: _seq, ...message }: StoredMessage): Message => message;

/** The collection's name: also the folder of each conversation's message and event logs. */
export const CONVERSATIONS_COLLECTION = 'conversations';

/** Conversations grow with every run, so each lives in its own record file. */
export const openConversations = (store: Store) => store.collection<ConversationRecord>(CONVERSATIONS_COLLECTION, 'per-record');

export function newConversationRecord(fields: Partial<ConversationRecord> = {}): ConversationRecord {
  const at = new Date().toISOString();
  return {
    id: newId('conv'),
    platform_conversation_id: newId('chat'),
    workspace_id: null,
    title: null,
    created_at: at,
    updated_at: at,
    deleted_at: null,
    run_id: null,
    assistant: null,
    permissions: null,
    agent_session: null,
    pending_message_ids: [],
    ...fields,
  };
}
