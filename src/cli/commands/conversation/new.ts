import { defineCommand } from '../../define-command.js';
import { UsageError } from '../../exit-codes.js';
import { printConversation } from './_print.js';
import { ASSISTANT_NAME_PATTERN } from '../../../shared/assistants.js';

/** `svc conversation new [--workspace id] [--title text] [--assistant claude|codex|<acp assistant>] [--permissions read|edit|full]`. */
export default defineCommand({
  options: {
    workspace: ['-w, --workspace <workspace>', 'the workspace its agents and runs use (name, id or id prefix)'],
    title: ['-t, --title <text>', 'a title'],
    assistant: ['--assistant <name>', "claude, codex or a configured acp assistant, e.g. gemini (default: the configuration's)"],
    permissions: ['--permissions <level>', "what its agent may do: read, edit or full (default: the configuration's, read)"],
  },
  run: async (cmd, _args, options) => {
    if (options.assistant !== undefined && !ASSISTANT_NAME_PATTERN.test(options.assistant))
      throw new UsageError('--assistant is claude, codex or a configured acp assistant (a lowercase name)');
    if (options.permissions !== undefined && !['read', 'edit', 'full'].includes(options.permissions))
      throw new UsageError('--permissions is read, edit or full');
    const conversation = await cmd.client().conversations.create({
      ...(options.workspace ? { workspace_id: options.workspace } : {}),
      ...(options.title ? { title: options.title } : {}),
      ...(options.assistant ? { assistant: options.assistant } : {}),
      ...(options.permissions ? { permissions: options.permissions as 'read' | 'edit' | 'full' } : {}),
    });
    printConversation(cmd, conversation);
  },
});
