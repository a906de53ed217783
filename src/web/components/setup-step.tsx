import type { RunDetail } from '../../client/types.js';
import { formatDuration } from '../format.js';
import { StatusBadge } from './status.js';

/** Why a setup was quick: the script did not run for this run. */
const SOURCE_TEXT = { pool: ' — a worktree prepared ahead, from the pool', cache: ' — restored from the setup cache' } as const;

/**
 * The worktree setup of a run (`.svc/worktree.yaml`, docs/decisions.md, "Worktree setup and
 * $SVC_PORT"): the step `setup` before the first node — its state, duration, the files copied in
 * and what it printed. Open when it failed: that output is why the run failed.
 */
export function SetupStep({ setup }: { setup: NonNullable<RunDetail['setup']> }) {
  return (
    <details class="setup-step" data-setup-status={setup.status} open={setup.status === 'failed'}>
      <summary>
        Setup <StatusBadge status={setup.status} /> {formatDuration(setup.durationMs)}
        {setup.source && setup.source !== 'setup' ? <span data-setup-source={setup.source}>{SOURCE_TEXT[setup.source]}</span> : null}
        {setup.copied.length ? ` — copied ${setup.copied.join(', ')}` : ''}
      </summary>
      {setup.error ? <p class="note error">{setup.error}</p> : null}
      <pre class="output" data-setup-output>
        {setup.outputTruncated ? '… (the start is cut: the last 64 KiB are kept)\n' : ''}
        {setup.output || '(no output)'}
      </pre>
    </details>
  );
}
