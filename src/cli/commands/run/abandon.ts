import { defineCommand, RUN_ARG } from '../../define-command.js';
import { printOutcome } from './_operation.js';

/** `svc abandon <run>`: a pending, running or paused run; its processes are killed. Of a failed run, calls off its auto-resume. */
export default defineCommand({
  args: [RUN_ARG],
  run: async (cmd, [runId]) => printOutcome(cmd, 'abandon', await cmd.client().runs.abandon(runId)),
});
