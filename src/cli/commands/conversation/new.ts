import { defineCommand } from '../../define-command.js';
import { UsageError } from '../../exit-codes.js';
import { printConversation } from './_print.js';

/** `svc conversation new [--workspace id] [--title text] [--assistant claude|codex] [--permissions read|edit|full]`. */
export default defineCommand({
  options: {
    workspace: ['-w, --workspace <workspace>', 'the workspace its agents and runs use (name, id or id prefix)'],
    title: ['-t, --title <text>', 'a title'],
    assistant: ['--assistant <name>', "claude or codex (default: the configuration's)"],
    permissions: ['--permissions <level>', "what its agent may do: read, edit or full (default: the configuration's, read)"],
  },
  run: async (cmd, _args, options) => {
    if (options.assistant !== undefined && options.assistant !== 'claude' && options.assistant !== 'codex')
      throw new UsageError('--assistant is claude or codex');
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
