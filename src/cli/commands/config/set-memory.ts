import { defineCommand } from '../../define-command.js';
import { UsageError } from '../../exit-codes.js';
import { printJson } from '../../output.js';
import { formatSize, parseSize } from '../../../shared/size.js';

/**
 * `svc config set-memory <assistant> <size>`, or `… none`: the memory limit of a conversation
 * reply's agent (docs/contract.md, "Memory admission"); a node's is its workflow's `max_memory`.
 * Checked with the route's own schema first, so a malformed size is a usage error (exit 2).
 */
export default defineCommand({
  args: [
    ['<assistant>', 'assistant name (claude, codex)'],
    ['<size>', 'a size such as 2GB or 1.5GiB, or none to remove the limit'],
  ],
  run: async (cmd, [assistant, size]) => {
    const maxMemory = size === 'none' ? null : size;
    const { AssistantsPatchSchema } = await import('../../../runtime.js');
    const parsed = AssistantsPatchSchema.safeParse({ [assistant]: { maxMemory } });
    if (!parsed.success) throw new UsageError(parsed.error.issues[0]?.message ?? 'invalid size');
    const result = await cmd.client().config.setAssistants(parsed.data);
    if (cmd.globals.json) return printJson(cmd.io, result);
    if (maxMemory === null) return void cmd.io.out(`${assistant} has no memory limit now in conversations.\n`);
    cmd.io.out(`${assistant}'s agent is stopped past ${formatSize(parseSize(maxMemory)!)} when it answers a conversation.\n`);
  },
});
