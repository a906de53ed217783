import { useEffect, useRef } from 'preact/hooks';
import { client } from '../api.js';
import { useLoad } from '../hooks.js';
import { StatusBadge } from './status.js';

/** How many follow-on runs the run page lists (the newest). */
const SHOWN = 20;

/**
 * The runs that follow this one (docs/decisions.md, "Follow-on runs"): started with `--from` it,
 * their worktrees branched from its head. Loaded with the page, and again when `version` changes
 * (its pull request's reactions start and end follow-on runs); nothing when there are none.
 */
export function FollowOns({ runId, version }: { runId: string; version: string }) {
  const { data, reload } = useLoad(() => client.runs.list({ fromRunId: runId, limit: SHOWN }), runId);
  // Reloaded in place, not keyed by the version: the list stays on the page while it loads again.
  const seen = useRef(version);
  useEffect(() => {
    if (seen.current === version) return;
    seen.current = version;
    reload();
  }, [version, reload]);
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
