import { shownFiles } from '../../../client/index.js';
import { defineCommand } from '../../define-command.js';
import { printJson, printTable } from '../../output.js';
import { WORKSPACE_ARG } from './_print.js';

/**
 * `svc workspace conflicts <workspace>`: the conflict forecast (docs/decisions.md, "Conflict
 * forecast") — each pair of unlanded run branches, or a branch and the target, that would
 * conflict or change the same files.
 */
export default defineCommand({
  args: [WORKSPACE_ARG],
  run: async (cmd, [id]) => {
    const forecast = await cmd.client().workspaces.conflicts(id);
    if (cmd.globals.json) return printJson(cmd.io, forecast);
    if (!forecast.targetCommit) {
      cmd.io.out(
        forecast.target
          ? `No branch ${forecast.target} in the workspace's repository: nothing to forecast.\n`
          : 'Not a git repository: runs on it have no branches.\n',
      );
    } else {
      const branches = `${forecast.runs.length} unlanded branch${forecast.runs.length === 1 ? '' : 'es'}`;
      cmd.io.out(`${forecast.target} at ${forecast.targetCommit.slice(0, 10)}; ${branches}.\n`);
      if (forecast.entries.length === 0) cmd.io.out('No conflicts, and no file changed by two of them (or by one and the target).\n');
      else {
        const name = (side: string) => (side === 'target' ? forecast.target : side);
        await printTable(
          cmd.io,
          ['RUN', 'WITH', 'FORECAST', 'FILES'],
          forecast.entries.map((e) => [e.sides[0], name(e.sides[1]), e.conflict ? 'conflict' : 'same files', shownFiles(e)]),
        );
      }
    }
    for (const skipped of forecast.skipped) cmd.io.err(`skipped ${skipped.runId} (${skipped.reason}): ${skipped.message}\n`);
  },
});
