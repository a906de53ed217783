import type { RunView } from '../../../engine/run-view.js';
import type { CommandRun } from '../../program.js';
import { startAndFollow, type RunOptions } from '../run.js';
import { applyOperation, printOutcome } from './operations.js';

/**
 * `svc resume <run>`: marks the failed run, then starts its workflow again in the same
 * conversation — which continues that run, skipping completed nodes — and follows it.
 * `--mark-only` stops after marking (the API's resume), for a later start to pick up.
 */
const resume: CommandRun = async (cmd, [id], options) => {
  const run = (await applyOperation(cmd, 'resume', id!)) as RunView;
  if (options.markOnly) return printOutcome(cmd, 'resume', run);
  // Follow from the continuation on: the run's first attempt is history.
  const lastPos = cmd.target.running || cmd.target.explicit ? await lastEventPosition(cmd, run.id) : 0;
  return startAndFollow(
    cmd,
    run.workflow,
    { message: run.message, cwd: run.cwd, trigger: 'cli', ...(run.conversationId ? { conversationId: run.conversationId } : {}) },
    options as RunOptions,
    lastPos,
  );
};

async function lastEventPosition(cmd: Parameters<CommandRun>[0], runId: string): Promise<number> {
  const detail = await cmd.client.request<{ events: Array<{ pos: number }> }>('GET', `/api/workflows/runs/${encodeURIComponent(runId)}`);
  return detail.events.reduce((max, event) => Math.max(max, event.pos ?? 0), 0);
}

export default resume;
