import { ApiResponseError } from '../../../client/index.js';
import { defineCommand } from '../../define-command.js';
import { UsageError } from '../../exit-codes.js';
import { printJson } from '../../output.js';

/** `svc config set-model <assistant> <model>`: the API checks both (one rule); a bad one is a usage error here. */
export default defineCommand({
  args: [
    ['<assistant>', 'assistant name (claude, codex)'],
    ['<model>', 'model name, e.g. sonnet'],
  ],
  run: async (cmd, [assistant, model]) => {
    const result = await cmd
      .client()
      .config.setAssistants({ [assistant]: { model } })
      .catch((error: unknown) => {
        if (error instanceof ApiResponseError && error.error === 'invalid_request') throw new UsageError(error.issues[0]?.message ?? 'invalid model');
        throw error;
      });
    if (cmd.globals.json) printJson(cmd.io, result);
    else cmd.io.out(`${assistant} now uses model ${model}.\n`);
  },
});
