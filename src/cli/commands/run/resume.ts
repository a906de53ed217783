import { defineCommand, RUN_ARG } from '../../define-command.js';
import { lastEventPosition } from './_follow.js';
import { printOutcome } from './_operation.js';
import { startAndFollow } from './run.js';
import { continuationOf } from '../../../client/run-actions.js';
import { maxCostOf } from './_max-cost.js';

/**
 * `svc resume <run>`: marks the failed run, then starts its workflow again in the same
 * conversation — which continues that run, skipping completed nodes — and follows it.
 * `--mark-only` stops after marking (the API's resume), for a later start to pick up.
 */
export default defineCommand({
  args: [RUN_ARG],
  options: {
    maxCost: ['--max-cost <usd>', "replace the run's spend cap (USD; may exceed the workflow's); a run its cap stopped needs one above what it spent"],
    markOnly: ['--mark-only', 'only mark it; the next start of its workflow in its conversation continues it'],
    detach: ['-d, --detach', 'print the run id and return at once'],
    wait: ['-w, --wait', 'wait without streaming progress'],
    verbose: ['--verbose', "stream node output and agents' tool calls"],
  },
  run: async (cmd, [id], options) => {
    const client = cmd.client();
    const run = await client.runs.resume(id, maxCostOf(options.maxCost));
    if (options.markOnly) return printOutcome(cmd, 'resume', run);
    // Follow from the continuation on: the run's first attempt is history.
    const after = await lastEventPosition(client, run.id);
    return startAndFollow(cmd, run.workflow, { ...continuationOf(run), trigger: 'cli' }, options, after);
  },
});
