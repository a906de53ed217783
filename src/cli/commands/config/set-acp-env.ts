import { defineCommand } from '../../define-command.js';
import { UsageError } from '../../exit-codes.js';
import { printJson } from '../../output.js';
import { readSecretValue } from '../../secret-value.js';

/**
 * `svc config set-acp-env <name> [KEY=VALUE | KEY ...] [--from-env]`: the values an acp assistant's
 * agent gets, replacing the ones before (none given: removes them). Never shown back: `svc config
 * show` lists their names. A value on the command line is in the shell's history and in `ps`, so
 * a `KEY` alone takes its value from this command's environment with `--from-env`, else (one key)
 * from stdin, or asked for, hidden.
 */
export default defineCommand({
  args: [
    ['<name>', 'the acp assistant'],
    ['[assignments...]', 'KEY=VALUE pairs, or KEY alone: its value from stdin, or --from-env (none: remove its values)'],
  ],
  options: {
    fromEnv: ['--from-env', "each KEY given alone takes its value from this command's environment"],
  },
  run: async (cmd, [name, assignments], options) => {
    const env: Record<string, string> = {};
    const bare: string[] = [];
    for (const assignment of assignments) {
      const at = assignment.indexOf('=');
      if (at === 0) throw new UsageError(`'${assignment.slice(0, 40)}' is not KEY=VALUE or KEY`);
      if (at > 0) env[assignment.slice(0, at)] = assignment.slice(at + 1);
      else bare.push(assignment);
    }
    if (options.fromEnv) {
      for (const key of bare) {
        const value = cmd.io.env[key];
        if (value === undefined) throw new UsageError(`--from-env: ${key} is not set in this command's environment`);
        env[key] = value;
      }
    } else if (bare.length > 1)
      throw new UsageError(`only one KEY can take its value from stdin (got ${bare.join(', ')}); --from-env reads them all from the environment`);
    else if (bare[0] !== undefined) env[bare[0]] = await readSecretValue(cmd.io, bare[0]);
    const { AssistantsPatchSchema } = await import('../../../runtime.js');
    const parsed = AssistantsPatchSchema.safeParse({ [name]: { env: assignments.length ? env : null } });
    if (!parsed.success) throw new UsageError(parsed.error.issues[0]?.message ?? 'invalid env');
    const result = await cmd.client().config.setAssistants(parsed.data);
    if (cmd.globals.json) return printJson(cmd.io, result);
    const names = result.assistants[name]?.envNames ?? [];
    cmd.io.out(names.length ? `${name}'s agent gets ${names.join(', ')}.\n` : `${name}'s agent gets no values of its own.\n`);
  },
});
