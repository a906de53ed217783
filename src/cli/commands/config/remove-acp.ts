import { defineCommand } from '../../define-command.js';
import { printJson } from '../../output.js';

/** `svc config remove-acp <name>`: removes an acp assistant (claude and codex are built in; the API refuses them). */
export default defineCommand({
  args: [['<name>', 'the acp assistant']],
  run: async (cmd, [name]) => {
    const result = await cmd.client().config.setAssistants({ [name]: null });
    if (cmd.globals.json) return printJson(cmd.io, result);
    cmd.io.out(`${name} is removed; the default assistant is ${result.defaultAssistant}.\n`);
  },
});
