import { useState } from 'preact/hooks';
import type { RunDetail, RunEvent } from '../../client/types.js';
import { client, errorText } from '../api.js';
import { formatTime } from '../format.js';
import { ExternalLink } from './external-link.js';
import { ErrorNote, StatusBadge } from './status.js';

type Pull = NonNullable<RunDetail['pr']>;
type Check = Pull['checks'][number];
type Reaction = Pull['reactions'][number];

const short = (sha: string | null) => (sha ? sha.slice(0, 10) : '—');

const runLink = (runId: string) => (
  <a href={`#/runs/${encodeURIComponent(runId)}`} class="mono">
    {runId}
  </a>
);

/** The step a failed check failed at, from its latest `pr_check_failed` event on this head commit. */
function failingStep(events: RunEvent[], check: Check, head: string | null): string | null {
  const event = events.findLast(
    (e): e is Extract<RunEvent, { type: 'pr_check_failed' }> => e.type === 'pr_check_failed' && e.check === check.name && e.commit === head,
  );
  return event?.failingStep ?? null;
}

function Checks({ pr, events }: { pr: Pull; events: RunEvent[] }) {
  if (pr.checks.length === 0) return <p class="muted">No checks reported on its head yet.</p>;
  return (
    <div class="table-wrap">
      <table class="pr-checks">
        <thead>
          <tr>
            <th scope="col">Check</th>
            <th scope="col">State</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {pr.checks.map((check, index) => {
            const step = check.state === 'failure' && !check.infrastructure ? failingStep(events, check, pr.headCommit) : null;
            return (
              <tr key={index} data-pr-check={check.name} data-check-state={check.state}>
                <td class="wrap">{check.name}</td>
                <td class="wrap">
                  <StatusBadge status={check.state} />
                  {step ? <span class="muted"> at {step}</span> : null}
                  {check.infrastructure ? (
                    <span class="block muted" data-infrastructure>
                      the CI&apos;s own failure, no run started: {check.infrastructure}
                    </span>
                  ) : null}
                </td>
                <td class="wrap">{check.url ? <ExternalLink url={check.url}>details</ExternalLink> : '—'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** What a reaction answers: the checks that failed, or a review's comments. */
function trigger(reaction: Reaction): string {
  if (reaction.kind === 'ci') return `${reaction.checks.length === 1 ? 'check' : 'checks'} ${reaction.checks.join(', ')} failed`;
  return `review: ${reaction.comments.length} ${reaction.comments.length === 1 ? 'comment' : 'comments'}`;
}

function Reactions({ pr }: { pr: Pull }) {
  if (pr.reactions.length === 0) return null;
  // A person's go-on counts afresh (docs/decisions.md, "Resuming a pull request that needs a person").
  const counted = pr.reactions.length - (pr.countedFrom ?? 0);
  return (
    <>
      <h3>
        Reactions{' '}
        <span class="muted" data-reaction-count>
          ({counted} of at most {pr.maxFixCycles}
          {pr.countedFrom !== undefined ? ' since the last resume' : ''})
        </span>
      </h3>
      <div class="table-wrap">
        <table class="pr-reactions">
          <thead>
            <tr>
              <th scope="col">Answers</th>
              <th scope="col">Follow-on run</th>
              <th scope="col">Outcome</th>
              <th scope="col">Started</th>
            </tr>
          </thead>
          <tbody>
            {pr.reactions.map((reaction) => (
              <tr key={reaction.followOnRunId} data-reaction={reaction.followOnRunId} data-reaction-kind={reaction.kind} data-reaction-state={reaction.state}>
                <td class="wrap" data-reaction-trigger>
                  {trigger(reaction)}
                </td>
                <td>
                  {runLink(reaction.followOnRunId)} <span class="muted">{reaction.workflow}</span>
                </td>
                <td class="wrap">
                  <StatusBadge status={reaction.outcome ?? reaction.state} />
                  {reaction.error ? (
                    <span class="block error-text" data-reaction-error>
                      {reaction.error}
                    </span>
                  ) : null}
                  {reaction.replyFailures?.length ? (
                    <span class="block muted" data-reply-failures>
                      replies not posted: {reaction.replyFailures.map((failure) => `comment ${failure.commentId} (${failure.error})`).join('; ')}
                    </span>
                  ) : null}
                </td>
                <td>{formatTime(reaction.startedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/**
 * Why a person is asked, and their go-on: reactions start again by themselves, counted afresh up to
 * the bound given (`POST …/pr/resume`, as `svc runs pr <run> --resume` does).
 */
function NeedsPerson({ run, onDone }: { run: RunDetail; onDone: () => void }) {
  const [bound, setBound] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const goOn = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await client.runs.resumePr(run.id, bound ? { maxFixCycles: Number(bound) } : {});
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
      onDone();
    }
  };
  return (
    <div class="note warn needs-human" role="alert">
      <p data-needs-human>
        <strong>Needs a person:</strong> {run.needsHumanReason}
      </p>
      <p class="inline-form">
        <label>
          at most{' '}
          <input
            type="number"
            min={1}
            max={20}
            step={1}
            value={bound}
            placeholder={String(run.pr?.maxFixCycles ?? 3)}
            onInput={(e) => setBound(e.currentTarget.value)}
            data-go-on-bound
          />{' '}
          reactions more
        </label>{' '}
        <button type="button" class="primary" disabled={busy} onClick={goOn} data-action="pr-go-on">
          Go on
        </button>{' '}
        <span class="muted">
          or <code>svc runs pr {run.id} --resume</code>
        </span>
      </p>
      <ErrorNote error={error} />
    </div>
  );
}

function Cleanup({ pr }: { pr: Pull }) {
  if (!pr.cleanup) return null;
  return (
    <>
      <h3>{pr.state === 'merged' ? 'Cleaned up after the merge' : 'Kept after closing'}</h3>
      <ul class="pr-cleanup" data-pr-cleanup>
        {pr.cleanup.map((entry) => (
          <li key={entry.runId} data-cleanup-run={entry.runId} data-removed={String(entry.removed)}>
            {runLink(entry.runId)}: {entry.removed ? 'worktree and branch removed' : `kept — ${entry.reason ?? 'no reason given'}`}
          </li>
        ))}
      </ul>
    </>
  );
}

/**
 * The run's pull request as svc follows it (docs/decisions.md, "Pull request reactions"): its
 * link, state and head, each check with its state, each reaction — what it answers, its follow-on
 * run, its outcome — and, first, whether a person is needed and why. Every value from GitHub is
 * text on the page, and an address only links when it is http(s).
 */
export function PullRequest({ run, onDone }: { run: RunDetail; onDone: () => void }) {
  const { pr } = run;
  if (!pr) return null;
  return (
    <section class="pull-request" aria-labelledby="pr-title" data-pr={pr.number} data-pr-state={pr.state}>
      <h2 id="pr-title">
        Pull request{' '}
        <span data-pr-link>
          <ExternalLink url={pr.url}>#{pr.number}</ExternalLink>
        </span>{' '}
        <StatusBadge status={pr.state} />
      </h2>
      {run.needsHuman ? <NeedsPerson run={run} onDone={onDone} /> : null}
      <dl class="facts">
        <dt>Address</dt>
        <dd class="mono">{pr.url}</dd>
        <dt>Head</dt>
        <dd class="mono" data-pr-head={pr.headCommit ?? ''} title={pr.headCommit ?? undefined}>
          {short(pr.headCommit)}
        </dd>
      </dl>
      {pr.lastError ? (
        <p class="note warn" data-pr-last-error>
          The last look at the pull request failed (svc looks again): {pr.lastError}
        </p>
      ) : null}
      <h3>Checks</h3>
      <Checks pr={pr} events={run.events} />
      <Reactions pr={pr} />
      <Cleanup pr={pr} />
    </section>
  );
}
