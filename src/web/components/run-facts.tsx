import type { RunDetail } from '../../client/types.js';
import { formatCost, formatDuration, formatTime, spanMs } from '../format.js';

/** The run at a glance; the optional rows show only for a run they apply to. `now` grows a running run's duration. */
export function RunFacts({ run, now }: { run: RunDetail; now: number }) {
  return (
    <dl class="facts">
      <dt>Run</dt>
      <dd class="mono">{run.id}</dd>
      <dt>Message</dt>
      <dd class="message">{run.message || '—'}</dd>
      <dt>Trigger</dt>
      <dd>{run.trigger}</dd>
      <dt>Workspace</dt>
      <dd class="mono">{run.workspaceId ?? '—'}</dd>
      <dt>Started</dt>
      <dd>{formatTime(run.startedAt)}</dd>
      <dt>Duration</dt>
      <dd>{formatDuration(spanMs(run.startedAt, run.finishedAt, now))}</dd>
      <dt>Cost</dt>
      <dd>{formatCost(run.costUsd)}</dd>
      {run.definitionHash ? (
        <>
          {/* The version it executes (docs/decisions.md, "Versions"), linked to the runs of the same version. */}
          <dt>Version</dt>
          <dd data-version>
            <a
              href={`#/runs?${new URLSearchParams({ workflow: run.workflow, version: run.definitionHash }).toString()}`}
              class="mono"
              title="runs of this version"
            >
              {run.definitionHash.slice(0, 8)}
            </a>
            {run.definitionChanged ? ' (the workflow changed since)' : ''}
            {(run.definitionHashes?.length ?? 0) > 1 ? ` · ran under ${run.definitionHashes!.map((hash) => hash.slice(0, 8)).join(' → ')}` : ''}
          </dd>
        </>
      ) : null}
      {run.fromRunId ? (
        <>
          <dt>Follows</dt>
          <dd data-from-run>
            follows run{' '}
            <a href={`#/runs/${encodeURIComponent(run.fromRunId)}`} class="mono">
              {run.fromRunId}
            </a>
          </dd>
        </>
      ) : null}
      {typeof run.maxCostUsd === 'number' || run.costPartial ? (
        <>
          {/* The spend cap (docs/decisions.md, "Spend cap"): what the agents reported against it, and whether some spend is unseen. */}
          <dt>Budget</dt>
          <dd data-budget>
            {formatCost(run.spentUsd ?? 0)}
            {typeof run.maxCostUsd === 'number' ? ` of ${formatCost(run.maxCostUsd)}` : ''}
            {run.costPartial ? ' (partial: an agent reported no cost)' : ''}
          </dd>
        </>
      ) : null}
      {run.resumeAt ? (
        <>
          {/* An agent's usage limit (docs/decisions.md, "Usage limits"): when a resume can succeed. */}
          <dt>Usage limit</dt>
          <dd data-usage-limit>resets {formatTime(run.resumeAt)}</dd>
        </>
      ) : null}
      {run.autoResumeAt ? (
        <>
          {/* The server's wake-up with the run (docs/decisions.md, "Auto-resume"); Cancel calls it off. */}
          <dt>Auto-resume</dt>
          <dd data-auto-resume>at {formatTime(run.autoResumeAt)}</dd>
        </>
      ) : null}
      {run.conversationId ? (
        <>
          <dt>Conversation</dt>
          <dd>
            <a href={`#/conversations/${encodeURIComponent(run.conversationId)}`} class="mono">
              {run.conversationId}
            </a>
          </dd>
        </>
      ) : null}
    </dl>
  );
}
