import { conflictLine, type RunView } from '../../../client/index.js';
import type { CommandContext } from '../../context.js';

/**
 * The conflict forecast of one run in words (docs/decisions.md, "Conflict forecast"), for `svc
 * runs show` and the approval prompt: `conflicts with main in math.js; touches src/a.ts like
 * run_…`; '' when it collides with nothing, has no branch or has landed. A forecast that could not
 * be had is said so, never the command's failure: it is a note beside the run.
 */
export async function forecastLine(cmd: CommandContext, run: Pick<RunView, 'id' | 'branch' | 'workspaceId' | 'merged'>): Promise<string> {
  if (!run.branch || !run.workspaceId || run.merged) return '';
  try {
    const forecast = await cmd.client().workspaces.conflicts(run.workspaceId, { runId: run.id });
    const skipped = forecast.skipped.find((s) => s.runId === run.id);
    if (skipped) return `not known (${skipped.message})`;
    return conflictLine(run.id, forecast);
  } catch (error) {
    return `not known (${(error as Error).message})`;
  }
}
