import { client } from '../api.js';
import { useLoad } from '../hooks.js';
import { StatusBadge } from './status.js';

/** How many follow-on runs the run page lists (the newest). */
const SHOWN = 20;

/**
 * The runs that follow this one (docs/decisions.md, "Follow-on runs"): started with `--from` it,
 * their worktrees branched from its head. Loaded with the page; nothing when there are none.
 */
export function FollowOns({ runId }: { runId: string }) {
  const { data } = useLoad(() => client.runs.list({ fromRunId: runId, limit: SHOWN }), runId);
  if (!data || data.total === 0) return null;
  return (
    <p class="follow-ons" data-follow-ons>
      Follow-on runs:{' '}
      {data.runs.map((run, index) => (
        <span key={run.id}>
          {index > 0 ? ', ' : ''}
          <a href={`#/runs/${encodeURIComponent(run.id)}`} class="mono">
            {run.id}
          </a>{' '}
          <StatusBadge status={run.status} />
        </span>
      ))}
      {data.total > data.runs.length ? ` and ${data.total - data.runs.length} more` : ''}
    </p>
  );
}
