import { useState } from 'preact/hooks';
import type { RunDetail } from '../../client/types.js';
import { client, errorText } from '../api.js';

type Action = 'merge' | 'push' | 'pr';

/** What one button did: its outcome, or the server's refusal. */
type Outcome = { ok: true; text: string; href?: string } | { ok: false; text: string };

const LABEL: Record<Action, string> = { merge: 'Merge', push: 'Push', pr: 'Create PR' };

async function land(action: Action, run: RunDetail): Promise<Outcome> {
  if (action === 'merge') {
    const merged = await client.runs.merge(run.id);
    if (merged.alreadyLanded) return { ok: true, text: `Already landed in ${merged.into}: ${merged.commit.slice(0, 10)}` };
    return { ok: true, text: `Merged into ${merged.into}: ${merged.commit.slice(0, 10)}` };
  }
  if (action === 'push') {
    const pushed = await client.runs.push(run.id);
    return { ok: true, text: `Pushed ${pushed.branch} to ${pushed.remote}` };
  }
  const { url } = await client.runs.pr(run.id);
  return { ok: true, text: url, href: url };
}

/**
 * Merge, Push and Create PR for a run's branch (docs/decisions.md, "Landing a run: merge, push, pull request"), beside its
 * Changes: each button shows what it did — the merge commit, the pull request's link — or why the
 * server refused (a dirty checkout, a conflict, gh missing). Only once the run stops changing, and
 * not once it has landed (issue 32): a merged branch has nothing left to merge, push or propose.
 */
export function Landing({ run }: { run: RunDetail }) {
  const [busy, setBusy] = useState<Action | null>(null);
  const [outcomes, setOutcomes] = useState<Partial<Record<Action, Outcome>>>({});
  const active = run.status === 'pending' || run.status === 'running';
  const landed = run.merged !== undefined;
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
        {(landed ? [] : (Object.keys(LABEL) as Action[])).map((action) => (
          <button
            key={action}
            type="button"
            data-land={action}
            disabled={busy !== null || active}
            title={active ? 'once the run stops' : undefined}
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
            {'href' in outcome && outcome.href ? (
              <a href={outcome.href} target="_blank" rel="noreferrer">
                {outcome.text}
              </a>
            ) : (
              outcome.text
            )}
          </p>
        );
      })}
      {run.merged && !outcomes.merge ? (
        <p class="muted" data-merged={run.merged.commit}>
          {run.merged.alreadyLanded ? `Already landed in ${run.merged.into}` : `Merged into ${run.merged.into} (${run.merged.strategy})`}:{' '}
          <span class="mono">{run.merged.commit.slice(0, 10)}</span>
        </p>
      ) : null}
      {run.pullRequest && !outcomes.pr ? (
        <p class="muted">
          Pull request:{' '}
          <a href={run.pullRequest.url} target="_blank" rel="noreferrer">
            {run.pullRequest.url}
          </a>
        </p>
      ) : null}
    </div>
  );
}
