import { defineCommand } from '../../define-command.js';
import { askText, carriedOn, pickPausedRun } from './_decide.js';
import { forecastLine } from './_forecast.js';
import { printOutcome } from './_operation.js';

/** `svc approve [run] [--comment text]`: the gate completes with the comment as its output. */
export default defineCommand({
  args: [['[run]', 'run id or prefix']],
  options: { comment: ['-m, --comment <text>', "comment; becomes the gate's output"] },
  run: async (cmd, [id], options) => {
    const runId = id ?? (await pickPausedRun(cmd, 'approve'));
    // The reviewer who picked a run here sees what landing it would meet before approving
    // (docs/decisions.md, "Conflict forecast").
    if (!id) {
      const forecast = await forecastLine(cmd, await cmd.client().runs.get(runId));
      if (forecast) cmd.io.out(`Forecast for ${runId}: ${forecast}\n`);
    }
    const comment =
      options.comment ??
      (id ? undefined : await askText(cmd, "Comment (becomes the gate's output)", `nothing was approved; give it all: svc approve ${runId} [-m <comment>]`));
    const run = await cmd.client().runs.approve(runId, comment === undefined ? {} : { comment });
    printOutcome(cmd, 'approve', await carriedOn(cmd, run));
  },
});
