import { useState } from 'preact/hooks';
import type { RunDetail } from '../../client/types.js';
import { client, errorText } from '../api.js';
import { ExternalLink } from './external-link.js';

type Action = 'merge' | 'queue' | 'push' | 'pr';

/** What one button did: its outcome, or the server's refusal. */
type Outcome = { ok: true; text: string; href?: string } | { ok: false; text: string };

const LABEL: Record<Action, string> = { merge: 'Merge', queue: 'Queue', push: 'Push', pr: 'Create PR' };

async function land(action: Action, run: RunDetail): Promise<Outcome> {
  if (action === 'merge') {
    const merged = await client.runs.merge(run.id);
    if (merged.alreadyLanded) return { ok: true, text: `Already landed in ${merged.into}: ${merged.commit.slice(0, 10)}` };
    return { ok: true, text: `Merged into ${merged.into}: ${merged.commit.slice(0, 10)}` };
  }
  if (action === 'queue') {
    const { entry } = await client.runs.enqueue(run.id);
    return { ok: true, text: `Queued for ${entry.target} (place ${entry.position}): it lands once verified; the workspace's page shows the queue` };
  }
  if (action === 'push') {
    const pushed = await client.runs.push(run.id);
    return { ok: true, text: `Pushed ${pushed.branch} to ${pushed.remote}` };
  }
  const { url } = await client.runs.pr(run.id);
  return { ok: true, text: url, href: url };
}

/** What the run's last landing-queue event says of it, if it entered one: one line, and whether it waits there still. */
function queueState(run: RunDetail): { text: string; waiting: boolean } | undefined {
  const last = [...run.events].reverse().find((event) => event.type.startsWith('queue_')) as { type: string; [field: string]: unknown } | undefined;
  if (!last) return undefined;
  const target = String(last.target);
  switch (last.type) {
    case 'queue_entered':
      return { text: `In the landing queue of ${target} (place ${String(last.position)})`, waiting: true };
    case 'queue_verifying':
      return {
        text: `Verifying ${String(last.commit).slice(0, 10)} on ${target}${Array.isArray(last.ahead) && last.ahead.length ? `, after ${last.ahead.map(String).join(', ')}` : ''}`,
        waiting: true,
      };
    case 'queue_paused':
      return { text: `The landing queue of ${target} is paused: ${String(last.reason)}`, waiting: true };
    case 'queue_needs_rework':
      return { text: `Not landed on ${target}: ${String(last.reason)}${last.reworkRunId ? ` (rework run ${String(last.reworkRunId)})` : ''}`, waiting: false };
    default:
      return { text: `Landed on ${target} by the queue: ${String(last.commit).slice(0, 10)}`, waiting: false };
  }
}

/**
 * Merge, Queue (the workspace's landing queue: docs/decisions.md, "Landing queue"), Push and Create
 * PR for a run's branch (docs/decisions.md, "Landing a run: merge, push, pull request"), beside its
 * Changes: each button shows what it did — the merge commit, the pull request's link — or why the
 * server refused (a dirty checkout, a conflict, gh missing). Only once the run stops changing, and
 * not once it has landed (issue 32): a merged branch has nothing left to merge, push or propose —
 * merged here or its pull request on GitHub — and no Create PR while its pull request is open.
 */
export function Landing({ run }: { run: RunDetail }) {
  const [busy, setBusy] = useState<Action | null>(null);
  const [outcomes, setOutcomes] = useState<Partial<Record<Action, Outcome>>>({});
  const active = run.status === 'pending' || run.status === 'running';
  // Merged on GitHub counts as landed too; an open pull request needs no second one.
  const landed = run.merged !== undefined || run.pr?.state === 'merged';
  const proposed = run.pr?.state === 'open' || (run.pullRequest !== undefined && run.pr === undefined);
  const queue = queueState(run);
  const act = async (action: Action) => {
    setBusy(action);
    let outcome: Outcome;
    try {
      outcome = await land(action, run);
    } catch (error) {
      outcome = { ok: false, text: errorText(error) };
    }
    setOutcomes((previous) => ({ ...previous, [action]: outcome }));
    setBusy(null);
  };
  return (
    <div class="landing" data-landing>
      <div class="buttons" hidden={landed}>
        {(landed ? [] : (Object.keys(LABEL) as Action[]).filter((action) => !(action === 'pr' && proposed))).map((action) => (
          <button
            key={action}
            type="button"
            data-land={action}
            disabled={busy !== null || active || (action === 'queue' && queue?.waiting === true)}
            title={active ? 'once the run stops' : action === 'queue' && queue?.waiting ? 'it is in the landing queue' : undefined}
            onClick={() => void act(action)}
          >
            {busy === action ? `${LABEL[action]}…` : LABEL[action]}
          </button>
        ))}
      </div>
      {(Object.keys(LABEL) as Action[]).map((action) => {
        const outcome = outcomes[action];
        if (!outcome) return null;
        return (
          <p
            key={action}
            class={outcome.ok ? 'note' : 'note error'}
            role={outcome.ok ? 'status' : 'alert'}
            data-land-outcome={action}
            data-ok={String(outcome.ok)}
          >
            {'href' in outcome && outcome.href ? <ExternalLink url={outcome.href} /> : outcome.text}
          </p>
        );
      })}
      {queue ? (
        <p class="muted" data-queue-state>
          {queue.text}
        </p>
      ) : null}
      {run.merged && !outcomes.merge ? (
        <p class="muted" data-merged={run.merged.commit}>
          {run.merged.alreadyLanded ? `Already landed in ${run.merged.into}` : `Merged into ${run.merged.into} (${run.merged.strategy})`}:{' '}
          <span class="mono">{run.merged.commit.slice(0, 10)}</span>
        </p>
      ) : null}
      {run.pullRequest && !outcomes.pr ? (
        <p class="muted">
          Pull request: <ExternalLink url={run.pullRequest.url} />
        </p>
      ) : null}
    </div>
  );
}
