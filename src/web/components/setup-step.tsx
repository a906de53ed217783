import type { RunDetail } from '../../client/types.js';
import { formatDuration } from '../format.js';
import { StatusBadge } from './status.js';

/**
 * The path the worktree took (issue 35: `pool`, `cache hit` or `setup`), and why that was quick or
 * slow: the script did not run for this run, or nothing was ready for it.
 */
const PATHS = {
  pool: { name: 'pool', why: 'a worktree prepared ahead: the setup script did not run for this run' },
  cache: { name: 'cache hit', why: 'restored from the setup cache: the setup script did not run' },
  setup: { name: 'setup', why: 'nothing prepared ahead or cached' },
} as const;

/**
 * The worktree setup of a run (`.svc/worktree.yaml`, docs/decisions.md, "Worktree setup and
 * $SVC_PORT"): the step `setup` before the first node — its state, duration, the files copied in
 * and what it printed. Open when it failed: that output is why the run failed.
 */
export function SetupStep({ setup }: { setup: NonNullable<RunDetail['setup']> }) {
  const path = setup.source ? PATHS[setup.source] : null;
  return (
    <details class="setup-step" data-setup-status={setup.status} open={setup.status === 'failed'}>
      <summary>
        Setup <StatusBadge status={setup.status} />{' '}
        {path ? (
          <>
            <span class="badge setup-source" data-setup-source={setup.source}>
              {path.name}
            </span>{' '}
          </>
        ) : null}
        <span data-setup-duration>{formatDuration(setup.durationMs)}</span>
        {path ? ` — ${path.why}` : ''}
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
