import { defineCommand } from '../../define-command.js';
import { printJson, printTable } from '../../output.js';

/** `svc schedule list`: each workflow schedule, its next firing and its last run. */
export default defineCommand({
  run: async (cmd) => {
    const result = await cmd.client().schedules.list();
    if (cmd.globals.json) return printJson(cmd.io, result);
    if (result.schedules.length === 0) {
      if (cmd.io.isStdoutTTY) cmd.io.err('No schedules. Add `triggers.schedule` to a workflow (docs/workflows.md).\n');
      return;
    }
    await printTable(
      cmd.io,
      ['WORKFLOW', 'CRON', 'ZONE', 'OVERLAP', 'NEXT', 'LAST RUN'],
      result.schedules.map((s) => [s.workflow, s.cron, s.timezone ?? 'local', s.overlap, s.next_at ?? 'never', s.last_run_id ?? '']),
    );
  },
});
