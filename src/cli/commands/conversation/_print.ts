import { formatUsd, type Conversation, type ConversationEvent, type Message } from '../../../client/index.js';
import type { CommandContext } from '../../context.js';
import { printJson, printTable, type Styler } from '../../output.js';
import { showsToolCall, toolLine } from '../run/_tools.js';

export const CONVERSATION_ARG = ['<conversation>', 'conversation id (or its platform_conversation_id)'] as const;

const roleLabel = (p: Styler, role: Message['role']) => (role === 'user' ? p.cyan('you') : role === 'assistant' ? p.green('assistant') : p.yellow('svc'));

/** One message: who, when, what (and its cost or error). */
export function formatMessage(p: Styler, message: Message): string {
  const meta = message.metadata;
  const extra = [
    typeof meta.costUsd === 'number' ? formatUsd(meta.costUsd) : undefined,
    meta.runId ? `run ${meta.runId}` : undefined,
    meta.code ? p.red(meta.code) : undefined,
  ].filter(Boolean);
  return `${p.dim(message.created_at.slice(11, 19))} ${roleLabel(p, message.role)}${extra.length ? p.dim(` (${extra.join(', ')})`) : ''}\n${message.content.replace(/\n?$/, '\n')}`;
}

/** A conversation event as `svc watch --conversation` shows it: messages whole, deltas and tool calls only with --verbose (refused calls always). */
export function printConversationEvent(cmd: CommandContext, p: Styler, event: ConversationEvent, verbose: boolean): void {
  if (event.type === 'message') cmd.io.out(formatMessage(p, event.message));
  else if (event.type === 'assistant_delta' && verbose) cmd.io.out(p.dim(event.text));
  else if (event.type === 'agent_tool' && showsToolCall(event.status, verbose)) cmd.io.out(`${toolLine(p, event)}\n`);
  else if (event.type === 'agent_error') cmd.io.err(`${p.red('agent error')} ${event.code}: ${event.error}\n`);
}

export function printConversation(cmd: CommandContext, conversation: Conversation): void {
  if (cmd.globals.json) return printJson(cmd.io, conversation);
  const lines: Array<[string, string]> = [
    ['id', conversation.id],
    ['stream id', conversation.platform_conversation_id],
    ['title', conversation.title ?? '(untitled)'],
    ['assistant', conversation.assistant ?? '(configured default)'],
    ['permissions', conversation.permissions ?? "(the assistant's configured)"],
    ['workspace', conversation.workspace_id ?? '(none)'],
    ['created', conversation.created_at],
    ['updated', conversation.updated_at],
  ];
  if (conversation.run_id) lines.push(['run', `${conversation.run_id} (worker conversation)`]);
  if (conversation.deleted_at) lines.push(['deleted', conversation.deleted_at]);
  const width = Math.max(...lines.map(([label]) => label.length));
  for (const [label, value] of lines) cmd.io.out(`${label.padEnd(width)}  ${value}\n`);
}

export async function printConversations(cmd: CommandContext, conversations: Conversation[]): Promise<void> {
  await printTable(
    cmd.io,
    ['ID', 'TITLE', 'WORKSPACE', 'UPDATED', 'STATE'],
    conversations.map((c) => [c.id, c.title ?? '', c.workspace_id ?? '', c.updated_at, c.deleted_at ? 'deleted' : c.run_id ? `run ${c.run_id}` : '']),
  );
}
