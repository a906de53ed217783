import { defineCommand } from '../../define-command.js';
import { printJson } from '../../output.js';
import { WORKSPACE_ARG } from '../workspace/_print.js';

/**
 * `svc queue <workspace>`: the workspace's landing queue (docs/contract.md, "Landing queue"), one
 * entry per line in queue order — run id, state, target branch — then, for an entry that waits or
 * needs rework, why (and the conflicting files) and its rework run. `--json`: the API's answer.
 */
export default defineCommand({
  args: [WORKSPACE_ARG],
  run: async (cmd, [workspace]) => {
    const queue = await cmd.client().workspaces.queue(workspace);
    if (cmd.globals.json) return printJson(cmd.io, queue);
    if (queue.entries.length === 0) {
      if (cmd.io.isStdoutTTY) cmd.io.err('The landing queue is empty. `svc runs merge <run> --queue` puts a run in it.\n');
      return;
    }
    for (const entry of queue.entries) {
      const reason = entry.reason?.split('\n')[0];
      const files = entry.files?.length ? ` (${entry.files.join(', ')})` : '';
      const rework = entry.reworkRunId ? ` → rework ${entry.reworkRunId}${entry.awaitingRework ? ' (under way)' : ''}` : '';
      const of = entry.reworkOf ? ` (rework of ${entry.reworkOf})` : '';
      cmd.io.out(`${entry.runId} ${entry.state} ${entry.target}${of}${reason ? ` — ${reason}${files}` : ''}${rework}\n`);
    }
  },
});
