/**
 * Slash commands in a conversation, answered without an agent (docs/decisions.md, "Conversations"):
 * `/run <workflow> <text>`, `/workflows`, `/runs`, `/status`, `/help`. Anything else starting with
 * `/` is answered with the help text, never sent to an agent.
 */

import type { ConversationDeps } from './ports.js';
import type { ConversationRecord, MessageMetadata } from './records.js';

export interface CommandAnswer {
  content: string;
  metadata: MessageMetadata;
  /** The answer reports a failure (a workflow that does not exist, a run that could not start). */
  failed?: { error: string; code: string };
}

export const HELP_TEXT = [
  'Commands:',
  '  /run <workflow> <text>   start a workflow linked to this conversation',
  '  /workflows               list the workflows you can run',
  '  /runs                    the runs of this conversation',
  '  /status                  this conversation: assistant, model, workspace, queue',
  '  /help                    this text',
  'Anything else goes to the assistant.',
].join('\n');

export const isSlashCommand = (text: string) => text.trimStart().startsWith('/');

export async function answerCommand(deps: ConversationDeps, conversation: ConversationRecord, text: string, queued: number): Promise<CommandAnswer> {
  const trimmed = text.trim();
  const [word = '', ...rest] = trimmed.split(/\s+/);
  const command = word.slice(1).toLowerCase();
  const metadata: MessageMetadata = { command };
  switch (command) {
    case 'run': {
      const [workflow, ...words] = rest;
      if (!workflow)
        return { content: `Usage: /run <workflow> <text>\n\n${HELP_TEXT}`, metadata, failed: { error: 'missing workflow name', code: 'invalid_command' } };
      // The text after the workflow's name, as typed (line breaks kept).
      const message = trimmed.slice(trimmed.indexOf(workflow) + workflow.length).trim() || words.join(' ');
      try {
        const run = await deps.runs.start({ workflow, message, conversationId: conversation.id });
        return {
          content: `Started run ${run.id} of workflow '${workflow}' (${run.status}). Its outcome will be posted here.`,
          metadata: { ...metadata, runId: run.id },
        };
      } catch (error) {
        const code = (error as { code?: string }).code ?? 'run_start_failed';
        return {
          content: `Could not start '${workflow}': ${(error as Error).message}`,
          metadata: { ...metadata, error: (error as Error).message, code },
          failed: { error: (error as Error).message, code },
        };
      }
    }
    case 'workflows': {
      const workflows = await deps.runs.workflows();
      const lines = workflows.map((w) => `  ${w.name}${w.description ? ` — ${w.description.split('\n')[0]}` : ''}`);
      return { content: workflows.length ? `Workflows:\n${lines.join('\n')}` : 'No workflows found.', metadata };
    }
    case 'runs': {
      // Runs name a conversation by either of its ids.
      const byId = await deps.runs.list(conversation.id, 20);
      const byPlatformId = await deps.runs.list(conversation.platform_conversation_id, 20);
      const runs = [...byId, ...byPlatformId].sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, 20);
      const lines = runs.map((r) => `  ${r.id}  ${r.workflow}  ${r.status}${r.error ? ` (${r.error})` : ''}  ${r.createdAt}`);
      return {
        content: runs.length
          ? `Runs of this conversation (newest first):\n${lines.join('\n')}`
          : 'No runs in this conversation yet. Start one with /run <workflow> <text>.',
        metadata,
      };
    }
    case 'status': {
      const assistant = conversation.assistant ?? (await deps.assistants.defaultAssistant());
      const model = await deps.assistants.modelOf(assistant);
      const lines = [
        `Conversation ${conversation.id} (${conversation.title ?? 'untitled'})`,
        `Assistant: ${assistant}${model ? ` (model ${model})` : ''}`,
        `Permissions: ${conversation.permissions ?? (await deps.assistants.permissionsOf(assistant))}`,
        `Workspace: ${conversation.workspace_id ?? `none (runs in ${deps.cwd})`}`,
        `Agent session: ${conversation.agent_session ? `${conversation.agent_session.assistant} ${conversation.agent_session.id}` : 'none yet'}`,
        `Messages waiting: ${queued}`,
      ];
      return { content: lines.join('\n'), metadata };
    }
    case 'help':
      return { content: HELP_TEXT, metadata };
    default:
      return { content: `Unknown command '${word}'.\n\n${HELP_TEXT}`, metadata };
  }
}
