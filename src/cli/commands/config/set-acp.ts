import { defineCommand } from '../../define-command.js';
import { UsageError } from '../../exit-codes.js';
import { printJson } from '../../output.js';

const number = (text: string | undefined) => (text === undefined ? undefined : text === 'none' ? null : Number(text));

/**
 * `svc config set-acp <name> [command...] [--preset gemini|opencode] [--model m] [--base-url u]
 * [--api-key-env NAME] [--max-concurrent n|none] [--default]`: adds or changes an assistant that
 * speaks ACP (docs/contract.md, "ACP agents"). A preset fills in the command when none is given.
 * Checked with the route's own schema first (a usage error, exit 2); what the configuration
 * refuses (a new name with neither command nor preset) is the API's answer (exit 1).
 */
export default defineCommand({
  args: [
    ['<name>', 'the assistant, as workflows and conversations name it (e.g. gemini)'],
    ['[command...]', "the command speaking ACP on stdio and its arguments, e.g. gemini --acp (default: the preset's)"],
  ],
  options: {
    preset: ['--preset <preset>', 'gemini or opencode: the agent it is (its command, variables and endpoint)'],
    model: ['--model <model>', 'the model it is asked to use'],
    baseUrl: ['--base-url <url>', "its model server's URL, or none"],
    apiKeyEnv: ['--api-key-env <name>', "the server's environment variable holding the key, or none"],
    maxConcurrent: ['--max-concurrent <n>', 'at most this many of its agents at once on a server, or none'],
    default: ['--default', 'make it the default assistant'],
  },
  run: async (cmd, [name, command], options) => {
    const patch = {
      kind: 'acp',
      ...(command.length > 0 ? { command } : {}),
      ...(options.preset !== undefined ? { preset: options.preset === 'none' ? null : options.preset } : {}),
      ...(options.model !== undefined ? { model: options.model } : {}),
      ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl === 'none' ? null : options.baseUrl } : {}),
      ...(options.apiKeyEnv !== undefined ? { apiKeyEnv: options.apiKeyEnv === 'none' ? null : options.apiKeyEnv } : {}),
      ...(options.maxConcurrent !== undefined ? { maxConcurrent: number(options.maxConcurrent) } : {}),
      ...(options.default ? { default: true } : {}),
    };
    const { AssistantsPatchSchema } = await import('../../../runtime.js');
    const parsed = AssistantsPatchSchema.safeParse({ [name]: patch });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new UsageError(issue ? `${issue.path.slice(1).join('.') || name}: ${issue.message}` : 'invalid assistant');
    }
    const result = await cmd.client().config.setAssistants(parsed.data);
    if (cmd.globals.json) return printJson(cmd.io, result);
    const saved = result.assistants[name]!;
    cmd.io.out(
      `${name} runs ${saved.command?.join(' ')}${saved.preset ? ` (preset ${saved.preset})` : ''} over ACP${result.defaultAssistant === name ? '; it is the default assistant' : ''}.\n`,
    );
  },
});
