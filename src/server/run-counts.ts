import type { AppContext } from '../app/context.js';
import type { RunCounts } from '../system/health.js';

interface RunStatusOnly {
  id: string;
  status: string;
}

/** Counts runs by their stored state, so health stays true whichever process runs them. */
export async function runCounts(ctx: AppContext): Promise<RunCounts> {
  const runs = await ctx.store.collection<RunStatusOnly>('runs', 'per-record');
  let running = 0;
  let queued = 0;
  for (const run of runs.all()) {
    if (run.status === 'running') running++;
    else if (run.status === 'pending') queued++;
  }
  return { running, queued };
}
