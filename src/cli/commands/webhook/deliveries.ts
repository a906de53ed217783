import { defineCommand } from '../../define-command.js';
import { UsageError } from '../../exit-codes.js';
import { printJson, printTable } from '../../output.js';

/** `svc webhook deliveries [slug]`: recent deliveries, newest first, and why each was accepted, skipped or refused. */
export default defineCommand({
  args: [['[slug]', 'only this trigger']],
  options: {
    outcome: ['--outcome <outcome>', 'only this outcome (accepted, duplicate, invalid_signature, …)'],
    limit: ['-n, --limit <n>', 'how many (default 20, at most 1000)'],
  },
  run: async (cmd, [slug], options) => {
    const limit = options.limit === undefined ? 20 : Number(options.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit takes a positive whole number, got '${options.limit}'`);
    const result = await cmd.client().webhooks.deliveries({ slug, outcome: options.outcome, limit });
    if (cmd.globals.json) return printJson(cmd.io, result);
    if (result.deliveries.length === 0) {
      if (cmd.io.isStdoutTTY) cmd.io.err('No deliveries recorded.\n');
      return;
    }
    await printTable(
      cmd.io,
      ['RECEIVED', 'SLUG', 'STATUS', 'OUTCOME', 'KEY', 'RUN'],
      result.deliveries.map((d) => [d.received_at, d.slug, d.status, d.outcome, d.key ?? '', d.run_id ?? '']),
    );
  },
});
