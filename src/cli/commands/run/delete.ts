import { defineCommand, RUN_ARG } from '../../define-command.js';
import { printOutcome } from './_operation.js';

/** `svc delete <run>`: a finished run, with its events and artifacts. */
export default defineCommand({
  args: [RUN_ARG],
  run: async (cmd, [runId]) => printOutcome(cmd, 'delete', await cmd.client().runs.delete(runId)),
});
