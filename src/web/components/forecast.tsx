import { useEffect } from 'preact/hooks';
import { conflictPhrases } from '../../client/conflicts.js';
import type { RunDetail } from '../../client/types.js';
import { client } from '../api.js';
import { useLoad } from '../hooks.js';

/**
 * How often the shown forecast is asked again: the target or another run's branch may move
 * without this run's stream saying so (docs/decisions.md, "Conflict forecast": within 10 s).
 */
const REFRESH_MS = 10_000;

/**
 * The run's conflict forecast, near Approve and Merge: `conflicts with main in math.js; touches
 * src/a.ts like run_…`. Nothing when its branch collides with nothing, or the forecast could not
 * be had (the page shows the run either way).
 */
export function Forecast({ run }: { run: Pick<RunDetail, 'id' | 'workspaceId' | 'headCommit'> }) {
  const workspaceId = run.workspaceId!;
  // A new commit of the run's own asks at once; the rest comes with the refresh.
  const forecast = useLoad(() => client.workspaces.conflicts(workspaceId, { runId: run.id }), `${run.id} ${run.headCommit ?? ''}`);
  const { reload } = forecast;
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') reload();
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);
  if (!forecast.data) return null;
  const phrases = conflictPhrases(run.id, forecast.data);
  if (phrases.length === 0) return null;
  const conflicts = forecast.data.entries.some((entry) => entry.conflict && entry.sides.includes(run.id));
  return (
    <p class={conflicts ? 'note warn' : 'note'} role="status" data-forecast={conflicts ? 'conflict' : 'overlap'}>
      Forecast: {phrases.join('; ')}
    </p>
  );
}
