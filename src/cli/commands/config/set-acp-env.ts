import { defineCommand } from '../../define-command.js';
import { UsageError } from '../../exit-codes.js';
import { printJson } from '../../output.js';

/**
 * `svc config set-acp-env <name> [KEY=VALUE...]`: the values an acp assistant's agent gets, replacing
 * the ones before (none given: removes them). Never shown back: `svc config show` lists their names.
 */
export default defineCommand({
  args: [
    ['<name>', 'the acp assistant'],
    ['[assignments...]', 'KEY=VALUE pairs (none: remove its values)'],
  ],
  run: async (cmd, [name, assignments]) => {
    const env: Record<string, string> = {};
    for (const assignment of assignments) {
      const at = assignment.indexOf('=');
      if (at < 1) throw new UsageError(`'${assignment.split('=')[0]}' is not KEY=VALUE`);
      env[assignment.slice(0, at)] = assignment.slice(at + 1);
    }
    const { AssistantsPatchSchema } = await import('../../../runtime.js');
    const parsed = AssistantsPatchSchema.safeParse({ [name]: { env: assignments.length ? env : null } });
    if (!parsed.success) throw new UsageError(parsed.error.issues[0]?.message ?? 'invalid env');
    const result = await cmd.client().config.setAssistants(parsed.data);
    if (cmd.globals.json) return printJson(cmd.io, result);
    const names = result.assistants[name]?.envNames ?? [];
    cmd.io.out(names.length ? `${name}'s agent gets ${names.join(', ')}.\n` : `${name}'s agent gets no values of its own.\n`);
  },
});
