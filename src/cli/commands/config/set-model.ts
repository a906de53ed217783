import { defineCommand } from '../../define-command.js';
import { UsageError } from '../../exit-codes.js';
import { printJson } from '../../output.js';

/**
 * `svc config set-model <assistant> <model>`. The body is checked here with the route's own schema
 * first, so a malformed model is a usage error (exit 2); what the domain refuses (an unknown
 * assistant) is the API's answer (exit 1).
 */
export default defineCommand({
  args: [
    ['<assistant>', 'assistant name (claude, codex)'],
    ['<model>', 'model name, e.g. sonnet'],
  ],
  run: async (cmd, [assistant, model]) => {
    const { AssistantsPatchSchema } = await import('../../../runtime.js');
    const parsed = AssistantsPatchSchema.safeParse({ [assistant]: { model } });
    if (!parsed.success) throw new UsageError(parsed.error.issues[0]?.message ?? 'invalid model');
    const result = await cmd.client().config.setAssistants(parsed.data);
    if (cmd.globals.json) printJson(cmd.io, result);
    else cmd.io.out(`${assistant} now uses model ${model}.\n`);
  },
});
