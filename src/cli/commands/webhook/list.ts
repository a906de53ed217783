import { defineCommand } from '../../define-command.js';
import { printJson, printTable } from '../../output.js';

/** `svc webhook list`: the registered triggers, and whether each secret is configured (never its value). */
export default defineCommand({
  run: async (cmd) => {
    const result = await cmd.client().webhooks.list();
    if (cmd.globals.json) return printJson(cmd.io, result);
    if (result.webhooks.length === 0) {
      if (cmd.io.isStdoutTTY) cmd.io.err('No webhook triggers. Add `triggers.webhook` to a workflow (docs/workflows.md).\n');
      return;
    }
    await printTable(
      cmd.io,
      ['SLUG', 'WORKFLOW', 'EVENT', 'SECRET', 'KEY FIELD', 'WINDOW'],
      result.webhooks.map((w) => [
        w.slug,
        w.workflow,
        w.event,
        `${w.secret_env} (${w.secret_configured ? 'set' : 'missing'})`,
        w.idempotency_key,
        `${w.dedupe_window_sec}s`,
      ]),
    );
  },
});
