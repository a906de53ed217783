import { defineCommand } from '../../define-command.js';
import { printJson } from '../../output.js';
import { currentTriggers, printTriggers } from './_shared.js';

/** `svc webhook list`: the registered triggers (pending changes registered first), and whether each secret is set, missing or weak (never its value). */
export default defineCommand({
  run: async (cmd) => {
    const result = await currentTriggers(cmd.client());
    if (cmd.globals.json) return printJson(cmd.io, result);
    if (result.webhooks.length === 0) {
      if (cmd.io.isStdoutTTY) cmd.io.err('No webhook triggers. Add `triggers.webhook` to a workflow (docs/workflows.md).\n');
      return;
    }
    await printTriggers(cmd, result.webhooks);
  },
});
