import * as z from 'zod';
import { ConversationSchema, MESSAGE_MAX_BYTES, MessageSchema, TITLE_MAX } from '../../conversations/index.js';
import { PERMISSIONS } from '../../shared/permissions.js';
import { AssistantNameSchema } from '../../config/index.js';
import { defineRoute, reply } from '../route.js';

/**
 * Conversations (docs/contract.md, "Conversations"). `{id}` is either of a conversation's ids. A
 * message sent is stored before the 202; the reply comes later, on the conversation's stream
 * (`/api/stream/{id}`) and in its messages.
 */

const IdParams = z.object({ id: z.string().min(1).describe('conversation id or platform_conversation_id') });

const CreateBody = z.strictObject({
  workspace_id: z.string().min(1).optional().describe('the workspace its agents and runs use: its id, name or an unambiguous id prefix (kept as the id)'),
  title: z.string().trim().min(1).max(TITLE_MAX).optional(),
  assistant: AssistantNameSchema.optional().describe(
    "the agent answering its messages: claude, codex or a configured acp assistant (default: the configuration's); another is 400 unknown_assistant",
  ),
  permissions: z
    .enum(PERMISSIONS)
    .optional()
    .describe("what its agent may do: read, edit or full (default: the assistant configuration's, read out of the box)"),
});

const RenameBody = z.strictObject({
  title: z.string().trim().min(1, 'title must not be empty').max(TITLE_MAX, `title has at most ${TITLE_MAX} characters`),
});

const SendBody = z.strictObject({
  message: z
    .string()
    .refine((text) => text.trim().length > 0, 'message must not be empty')
    .refine((text) => Buffer.byteLength(text) <= MESSAGE_MAX_BYTES, `message has at most ${MESSAGE_MAX_BYTES} bytes`),
});

const booleanText = z.enum(['true', 'false', '1', '0']).transform((text) => text === 'true' || text === '1');

const ConversationList = z.object({ conversations: z.array(ConversationSchema), total: z.number().int() });
const MessagePage = z.object({
  messages: z.array(MessageSchema).describe('oldest first'),
  next_before: z.string().nullable().describe('pass as `before` for the older page; null: this is the oldest'),
});

export const conversationRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/conversations',
    summary: 'Create a conversation, optionally on a workspace',
    tag: 'conversations',
    body: CreateBody,
    bodyOptional: true,
    errors: [400, 404, 413, 415],
    responses: { 201: { description: 'The conversation, with the platform_conversation_id its stream is named by', schema: ConversationSchema } },
    handle: async ({ ctx, body }) => reply(201, await ctx.conversations.create(body ?? {})),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/conversations',
    summary: 'Conversations, newest first (soft-deleted ones only with include_deleted=true)',
    tag: 'conversations',
    query: z.object({
      workspace_id: z.string().min(1).optional(),
      include_deleted: booleanText.optional(),
      limit: z.coerce.number().int().min(1).max(200).default(50),
      offset: z.coerce.number().int().min(0).default(0),
    }),
    errors: [400],
    responses: { 200: { description: 'Conversations', schema: ConversationList } },
    handle: ({ ctx, query }) => ctx.conversations.list(query),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/conversations/{id}',
    summary: 'One conversation (either id)',
    tag: 'conversations',
    params: IdParams,
    errors: [404],
    responses: { 200: { description: 'The conversation', schema: ConversationSchema } },
    handle: ({ ctx, params }) => ctx.conversations.get(params.id),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/api/conversations/{id}',
    summary: 'Rename a conversation',
    tag: 'conversations',
    params: IdParams,
    body: RenameBody,
    errors: [400, 404, 413, 415],
    responses: { 200: { description: 'The renamed conversation', schema: ConversationSchema } },
    handle: ({ ctx, params, body }) => ctx.conversations.rename(params.id, body.title),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/conversations/{id}',
    summary: 'Soft-delete a conversation: hidden from lists, still readable, takes no new messages',
    tag: 'conversations',
    params: IdParams,
    errors: [404],
    responses: { 200: { description: 'The conversation, with deleted_at set', schema: ConversationSchema } },
    handle: ({ ctx, params }) => ctx.conversations.delete(params.id),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/conversations/{id}/messages',
    summary: 'Messages, oldest first: the newest `limit`, or those before the message `before`',
    tag: 'conversations',
    params: IdParams,
    query: z.object({
      limit: z.coerce.number().int().min(1).max(200).default(50),
      before: z.string().min(1).optional().describe('a message id: the page holds older messages'),
    }),
    errors: [400, 404],
    responses: { 200: { description: 'A page of messages', schema: MessagePage } },
    handle: ({ ctx, params, query }) => ctx.conversations.messages(params.id, query),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/conversations/{id}/message',
    summary: 'Send a message; it is stored at once and answered asynchronously (over the stream and in the messages)',
    tag: 'conversations',
    params: IdParams,
    body: SendBody,
    errors: [400, 404, 409, 413, 415],
    responses: { 202: { description: 'Accepted', schema: z.object({ accepted: z.literal(true), messageId: z.string() }) } },
    handle: async ({ ctx, params, body }) => reply(202, await ctx.conversations.send(params.id, body.message)),
  }),
];
