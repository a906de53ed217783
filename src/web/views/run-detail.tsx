import { useMemo, useRef, useState } from 'preact/hooks';
import { allowedOperations, resumeAndContinue, type RunOperation } from '../../client/run-actions.js';
import { deniedToolsNote } from '../../client/tool-activity.js';
import type { RunDetail, RunEvent, StreamEvent } from '../../client/types.js';
import { client, errorText } from '../api.js';
import { Changes } from '../components/changes.js';
import { Dag } from '../components/dag.js';
import { FollowOns } from '../components/follow-ons.js';
import { SetupStep } from '../components/setup-step.js';
import { ErrorNote, StatusBadge } from '../components/status.js';
import { NodeOutput } from '../components/output.js';
import { Timeline } from '../components/timeline.js';
import { ToolCalls } from '../components/tool-calls.js';
import { formatCost, formatDuration, formatTime, spanMs } from '../format.js';
import { navigate, useDebounced, useLoad, useNow, useStream } from '../hooks.js';

/** Events by their per-run `seq`: what the detail answered and what the stream brought since, each once. */
function mergeEvents(known: RunEvent[], more: RunEvent[]): RunEvent[] {
  const bySeq = new Map<number, RunEvent>();
  for (const event of [...known, ...more]) bySeq.set(event.seq, event);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

/** A node's output as it streamed; a finished node's stored output is the last word. */
function outputOf(run: RunDetail, events: RunEvent[], nodeId: string): string {
  const node = run.nodes[nodeId];
  if (node?.finishedAt && node.output !== null) return node.output;
  return events
    .filter((event): event is Extract<RunEvent, { type: 'node_output' }> => event.type === 'node_output' && event.nodeId === nodeId)
    .map((event) => event.text)
    .join('');
}

/**
 * Which shown output was cut at 64 KiB: the stored one (the whole output is in `<node>.out`), or
 * the streamed one of a node with none stored (its events stop there; `<node>.log` has the rest).
 */
function outputCut(run: RunDetail, events: RunEvent[], nodeId: string): 'stored' | 'streamed' | null {
  const node = run.nodes[nodeId];
  if (node?.finishedAt && node.output !== null) return node.outputTruncated ? 'stored' : null;
  return events.some((event) => event.type === 'node_output' && event.nodeId === nodeId && event.truncated === true) ? 'streamed' : null;
}

/** What of a node's output and log was cut, and where the rest is (docs/decisions.md, "Node output"). */
function CutNotes({ nodeId, output, log }: { nodeId: string; output: 'stored' | 'streamed' | null; log: boolean }) {
  return (
    <>
      {output ? (
        <p class="muted" data-cut="output">
          {output === 'stored'
            ? "Output truncated at 64 KiB; the whole output is in the run's artifacts: "
            : "Output shown up to 64 KiB; the rest is in the run's artifacts: "}
          <span class="mono">{output === 'stored' ? `${nodeId}.out` : `${nodeId}.log`}</span>.
        </p>
      ) : null}
      {log ? (
        <p class="muted" data-cut="log">
          The node's log (<span class="mono">{nodeId}.log</span>) reached its 32 MiB limit; what the node printed after that is not kept.
        </p>
      ) : null}
    </>
  );
}

/**
 * A waiting run (docs/decisions.md, "Waits and signals"): each waiting node with what it waits for —
 * its time, or an event and how to signal it — and when the server continues the run on its own.
 */
function Waits({ run }: { run: RunDetail }) {
  const waiting = Object.entries(run.nodes).filter(([, node]) => node.status === 'waiting');
  return (
    <div class="waits" role="region" aria-label="Waiting">
      <p>
        <strong>Waiting</strong>
        {run.wakeAt ? <> — continues by itself at {formatTime(run.wakeAt)}</> : <> — for a signal</>}; it holds no run slot.
      </p>
      <ul>
        {waiting.map(([id, node]) => (
          <li key={id} data-wait={id}>
            <span class="mono">{id}</span>
            {node.waitEvent ? (
              <>
                {' '}
                waits for the event <span class="mono">{node.waitEvent}</span>
                {node.waitUntil ? <>, until {formatTime(node.waitUntil)} (then it fails wait_timeout)</> : null}:{' '}
                <code>
                  svc signal {run.id} {node.waitEvent}
                </code>
              </>
            ) : (
              <> waits until {formatTime(node.waitUntil)}</>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The permission levels in a phrase (docs/contract.md, "Permissions"). */
const PERMISSIONS_MEANING: Record<string, string> = {
  read: 'reads and searches; writes no file, runs no command that changes one',
  edit: "edits files and runs commands in the run's directory",
  full: 'no checks at all',
};

const LABELS: Record<RunOperation, string> = {
  cancel: 'Cancel',
  approve: 'Approve',
  reject: 'Reject',
  resume: 'Resume',
  abandon: 'Abandon',
  delete: 'Delete',
};

function Actions({ run, onDone, onDeleting }: { run: RunDetail; onDone: () => void; onDeleting: (deleting: boolean) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [comment, setComment] = useState('');
  const [reason, setReason] = useState('');
  const allowed = allowedOperations(run.status);
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
          // Cancel of a failed run calls off its auto-resume appointment; the run stays failed.
          <button type="button" data-action="cancel-auto-resume" disabled={busy} onClick={() => act('cancel')}>
            Cancel auto-resume
          </button>
        ) : null}
      </div>
      <ErrorNote error={error} />
    </div>
  );
}

export function RunDetailView({ runId }: { runId: string }) {
  const detail = useLoad(() => client.runs.get(runId), runId);
  const [streamed, setStreamed] = useState<RunEvent[]>([]);
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const [deleted, setDeleted] = useState(false);
  // Once a delete is asked, the run is going: a reload would only fetch a 404.
  const deleting = useRef(false);
  const reload = useDebounced(() => {
    if (!deleting.current) detail.reload();
  }, 100);
  // A deleted run's stream has nothing more to say (and the server ends it): stop following.
  useStream(
    deleted ? undefined : '__dashboard__',
    (event: StreamEvent) => {
      if (!('runId' in event) || event.runId !== runId) return;
      if (event.type === 'run_deleted') return setDeleted(true);
      setStreamed((previous) => [...previous, event as RunEvent]);
      // Output and tool calls only add lines; anything else changes the run's or a node's state.
      if (event.type !== 'node_output' && event.type !== 'setup_output' && event.type !== 'agent_tool') reload();
    },
    { runId, onOpen: reload },
  );
  const run = detail.data;
  const events = useMemo(() => mergeEvents(run?.events ?? [], streamed), [run, streamed]);
  const now = useNow(run?.status === 'running' || run?.status === 'paused' || run?.status === 'waiting');

  if (!run) {
    return (
      <section>
        <p>
          <a href="#/runs">← Runs</a>
        </p>
        {detail.error ? <ErrorNote error={detail.error} /> : <p class="note">Loading…</p>}
      </section>
    );
  }
  const states = Object.fromEntries(Object.entries(run.nodes).map(([id, node]) => [id, node.status]));
  const graph = run.graph ?? Object.keys(run.nodes).map((id) => ({ id, dependsOn: [], kind: '', conditional: false }));
  const shown = selected ?? Object.entries(run.nodes).find(([, node]) => node.status === 'running')?.[0] ?? graph[0]?.id;
  const shownNode = shown ? run.nodes[shown] : undefined;
  const denied = deniedToolsNote(run);
  // A run in a worktree of its own has a branch to show the changes of (docs/decisions.md, "A commit per node, and the diff").
  const hasChanges = Boolean(run.branch && run.baseCommit) && !deleted;
  // What the agent was allowed once the node ran, else what its definition allows.
  const shownPermissions = shownNode?.permissions ?? graph.find((node) => node.id === shown)?.permissions;
  return (
    <section aria-labelledby="run-title" data-run-id={run.id} data-status={run.status}>
      <p>
        <a href="#/runs">← Runs</a>
      </p>
      <h1 id="run-title">
        {run.workflow} <StatusBadge status={run.status} />
      </h1>
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
            {/* The server's appointment with the run (docs/decisions.md, "Auto-resume"); Cancel calls it off. */}
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
      {run.error ? (
        <p class="note error" role="alert">
          {run.error}
        </p>
      ) : null}
      {run.rejectReason ? <p class="note">Rejected: {run.rejectReason}</p> : null}
      {denied ? (
        <p class="note warn" role="status" data-tools-denied>
          {run.status} — {denied}
        </p>
      ) : null}
      {deleted ? (
        <p class="note error" role="alert">
          This run was deleted; what is shown is what it was. <a href="#/runs">Back to the runs.</a>
        </p>
      ) : (
        <>
          <ErrorNote error={detail.error} />
          {run.status === 'waiting' ? <Waits run={run} /> : null}
          <Actions run={run} onDone={detail.reload} onDeleting={(value) => (deleting.current = value)} />
        </>
      )}
      {/* At a gate, what is to be approved sits beside Approve and Reject. */}
      {hasChanges && run.status === 'paused' ? <Changes run={run} /> : null}
      {run.status === 'completed' || run.status === 'failed' ? (
        <p>
          <a href={`#/benchmarks/${encodeURIComponent(run.workflow)}?a=${encodeURIComponent(run.id)}`}>Compare with another run…</a>
        </p>
      ) : null}
      {run.branch ? <FollowOns runId={run.id} /> : null}
      {run.setup ? <SetupStep setup={run.setup} /> : null}
      <div class="split">
        <div>
          <h2>Graph</h2>
          <Dag nodes={graph} states={states} selected={shown} onSelect={setSelected} label={`DAG of ${run.workflow}; choose a node to see its output`} />
        </div>
        <div>
          <h2>Timeline</h2>
          <Timeline run={run} now={now} />
          <h2>Nodes</h2>
          <div class="table-wrap">
            <table class="nodes">
              <thead>
                <tr>
                  <th scope="col">Node</th>
                  <th scope="col">State</th>
                  <th scope="col">Duration</th>
                  <th scope="col">Cost</th>
                </tr>
              </thead>
              <tbody>
                {graph.map(({ id }) => {
                  const node = run.nodes[id];
                  return (
                    <tr key={id} data-node-id={id} class={shown === id ? 'selected' : ''}>
                      <td>
                        <button type="button" class="link mono" onClick={() => setSelected(id)}>
                          {id}
                        </button>
                      </td>
                      <td>{node ? <StatusBadge status={node.status} /> : '—'}</td>
                      <td>{formatDuration(node ? spanMs(node.startedAt, node.finishedAt, now) : null)}</td>
                      <td>{formatCost(node?.costUsd)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </div>
      </div>
      {shown ? (
        <div class="output-panel">
          <h2>
            Output of <span class="mono">{shown}</span> {shownNode ? <StatusBadge status={shownNode.status} /> : null}
          </h2>
          {shownNode?.error ? (
            <p class="note error" role="alert">
              {shownNode.error}
            </p>
          ) : null}
          {shownNode?.waitingFor ? (
            <p class="note" data-waiting-for={shownNode.waitingFor}>
              Waiting for an agent slot (SVC_MAX_CONCURRENT_AGENTS or the assistant's maxConcurrent); its timeout starts when it gets one.
            </p>
          ) : null}
          {shownPermissions ? (
            <p class="muted" data-permissions={shownPermissions}>
              Agent permissions: <strong>{shownPermissions}</strong> — {PERMISSIONS_MEANING[shownPermissions]}
            </p>
          ) : null}
          {shownNode?.envGiven ? (
            <p class="muted" data-env-given={shownNode.envGiven.join(',')}>
              Environment beyond the base set: {shownNode.envGiven.length ? shownNode.envGiven.join(', ') : 'none'}
            </p>
          ) : null}
          {shownNode?.reason ? <p class="note">Skipped: {shownNode.reason}</p> : null}
          <ToolCalls nodeId={shown} events={events} />
          <NodeOutput nodeId={shown} text={outputOf(run, events, shown) || (shownNode?.status === 'running' ? '…' : '(no output)')} />
          <CutNotes nodeId={shown} output={outputCut(run, events, shown)} log={Boolean(shownNode?.logTruncated)} />
        </div>
      ) : null}
      {hasChanges && run.status !== 'paused' ? <Changes run={run} /> : null}
    </section>
  );
}
