import { defineCommand, RUN_ARG } from '../../define-command.js';
import { printOutcome } from './_operation.js';

/** `svc cancel <run>`: a pending or running run: its processes get SIGTERM, then SIGKILL after 5 s. Of a failed run, calls off its auto-resume. */
export default defineCommand({
  args: [RUN_ARG],
  run: async (cmd, [runId]) => printOutcome(cmd, 'cancel', await cmd.client().runs.cancel(runId)),
});
