import { useState } from 'preact/hooks';
import { allowedOperations, resumeAndContinue, type RunOperation } from '../../client/run-actions.js';
import type { RunDetail, RunEvent } from '../../client/types.js';
import { client, errorText } from '../api.js';
import { navigate } from '../hooks.js';
import { ErrorNote } from './status.js';

const LABELS: Record<RunOperation, string> = {
  cancel: 'Cancel',
  approve: 'Approve',
  reject: 'Reject',
  resume: 'Resume',
  abandon: 'Abandon',
  delete: 'Delete',
};

/**
 * The operations the run's state allows (client/run-actions), with Approve and Reject beside the
 * gate they answer. `onDeleting` tells the page a delete is under way, so it stops reloading a run
 * that is going.
 */
export function RunActions({ run, onDone, onDeleting }: { run: RunDetail; onDone: () => void; onDeleting: (deleting: boolean) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [comment, setComment] = useState('');
  const [reason, setReason] = useState('');
  // A landed run's branch is in its target (issue 32): resuming it would make changes nobody lands.
  const allowed = allowedOperations(run.status).filter((operation) => !(operation === 'resume' && run.merged !== undefined));
  const act = async (operation: RunOperation) => {
    if (operation === 'delete' && !confirm(`Delete run ${run.id} and its history?`)) return;
    if (operation === 'delete') onDeleting(true);
    setBusy(true);
    setError(undefined);
    try {
      if (operation === 'approve') await client.runs.approve(run.id, comment ? { comment } : {});
      else if (operation === 'reject') await client.runs.reject(run.id, reason ? { reason } : {});
      else if (operation === 'resume') {
        const continued = await resumeAndContinue(client, run.id);
        if (continued !== run.id) return navigate(`#/runs/${encodeURIComponent(continued)}`);
      } else await client.runs[operation](run.id);
      if (operation === 'delete') return navigate('#/runs');
      setComment('');
      setReason('');
      onDone();
    } catch (e) {
      onDeleting(false);
      setError(errorText(e));
      // Refused (409: someone else acted first) or failed: show the run as it now is, beside why.
      onDone();
    } finally {
      setBusy(false);
    }
  };
  const paused = run.status === 'paused';
  const gate = paused ? Object.entries(run.nodes).find(([, node]) => node.status === 'waiting_approval') : undefined;
  const pauseMessage = [...(run.events ?? [])].reverse().find((event) => event.type === 'run_paused') as Extract<RunEvent, { type: 'run_paused' }> | undefined;
  return (
    <div class="actions">
      {paused ? (
        <div class="approval" role="region" aria-label="Approval">
          <p>
            <strong>Waiting for approval</strong>
            {gate ? <span class="mono"> at {gate[0]}</span> : null}
            {pauseMessage ? <>: {pauseMessage.message}</> : null}
          </p>
          <label>
            Comment <input name="comment" value={comment} onInput={(e) => setComment(e.currentTarget.value)} placeholder="optional" />
          </label>
          <button type="button" class="primary" disabled={busy} onClick={() => act('approve')}>
            Approve
          </button>
          <label>
            Reason <input name="reason" value={reason} onInput={(e) => setReason(e.currentTarget.value)} placeholder="optional" />
          </label>
          <button type="button" class="danger" disabled={busy} onClick={() => act('reject')}>
            Reject
          </button>
        </div>
      ) : null}
      <div class="buttons">
        {allowed
          .filter((operation) => operation !== 'approve' && operation !== 'reject')
          .map((operation) => (
            <button
              type="button"
              key={operation}
              data-action={operation}
              disabled={busy}
              class={operation === 'delete' || operation === 'abandon' ? 'danger' : ''}
              onClick={() => act(operation)}
            >
              {LABELS[operation]}
            </button>
          ))}
        {run.status === 'failed' && run.autoResumeAt ? (
          // Cancel of a failed run calls off its auto-resume wake-up; the run stays failed.
          <button type="button" data-action="cancel-auto-resume" disabled={busy} onClick={() => act('cancel')}>
            Cancel auto-resume
          </button>
        ) : null}
      </div>
      <ErrorNote error={error} />
    </div>
  );
}
