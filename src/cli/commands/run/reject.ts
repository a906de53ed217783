import { defineCommand } from '../../define-command.js';
import { askText, pickPausedRun } from './_decide.js';
import { printOutcome } from './_operation.js';

/** `svc reject [run] [--reason text]`: the run ends cancelled, the reason recorded. */
export default defineCommand({
  args: [['[run]', 'run id or prefix']],
  options: { reason: ['-r, --reason <text>', 'why'] },
  run: async (cmd, [id], options) => {
    const runId = id ?? (await pickPausedRun(cmd, 'reject'));
    const reason =
      options.reason ?? (id ? undefined : await askText(cmd, 'Reason', `nothing was rejected; give it all: svc reject ${runId} [--reason <text>]`));
    printOutcome(cmd, 'reject', await cmd.client().runs.reject(runId, reason === undefined ? {} : { reason }));
  },
});
