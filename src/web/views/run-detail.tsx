import { useMemo, useRef, useState } from 'preact/hooks';
import { toleratedNodes, toleratedNote } from '../../client/node-failures.js';
import { deniedToolsNote } from '../../client/tool-activity.js';
import type { RunEvent, StreamEvent } from '../../client/types.js';
import { client } from '../api.js';
import { Changes } from '../components/changes.js';
import { Dag } from '../components/dag.js';
import { FollowOns } from '../components/follow-ons.js';
import { Forecast } from '../components/forecast.js';
import { NodePanel } from '../components/node-panel.js';
import { PullRequest } from '../components/pull-request.js';
import { RunActions } from '../components/run-actions.js';
import { RunFacts } from '../components/run-facts.js';
import { SetupStep } from '../components/setup-step.js';
import { ErrorNote, StatusBadge } from '../components/status.js';
import { Timeline } from '../components/timeline.js';
import { Waits } from '../components/waits.js';
import { formatCost, formatDuration, spanMs } from '../format.js';
import { useDebounced, useLoad, useNow, useStream } from '../hooks.js';
import { formatSize } from '../../client/format.js';
import { memoryOf, mergeEvents } from '../run-events.js';

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
      // Output, tool calls and memory figures only add to what is shown; anything else changes the run's or a node's state.
      if (event.type !== 'node_output' && event.type !== 'setup_output' && event.type !== 'agent_tool' && event.type !== 'node_memory') reload();
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
  // Shown first: what runs now, else the node that failed the run (its last lines say why), else the first.
  const entries = Object.entries(run.nodes);
  const shown =
    selected ??
    entries.find(([, node]) => node.status === 'running')?.[0] ??
    entries.find(([, node]) => node.status === 'failed' && !node.tolerated)?.[0] ??
    graph[0]?.id;
  const tolerated = toleratedNodes(run);
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
      <RunFacts run={run} now={now} />
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
      {/* A run that tolerated failures never reads as a plain success (as on `svc run`'s last line). */}
      {tolerated.length ? (
        <p class="note warn" role="status" data-tolerated-note>
          {run.status} — {toleratedNote(run)}
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
          <RunActions run={run} onDone={detail.reload} onDeleting={(value) => (deleting.current = value)} />
          {/* What landing its branch would meet, where a reviewer approves or merges (docs/decisions.md, "Conflict forecast"). */}
          {run.branch && run.workspaceId && !run.merged ? <Forecast run={run} /> : null}
        </>
      )}
      {/* Its pull request as svc follows it (docs/decisions.md, "Pull request reactions"): the page reloads on each of its events. */}
      {run.pr ? <PullRequest run={run} onDone={detail.reload} /> : null}
      {/* At a gate, what is to be approved sits beside Approve and Reject. */}
      {hasChanges && run.status === 'paused' ? <Changes run={run} /> : null}
      {run.status === 'completed' || run.status === 'failed' ? (
        <p>
          <a href={`#/benchmarks/${encodeURIComponent(run.workflow)}?a=${encodeURIComponent(run.id)}`}>Compare with another run…</a>
        </p>
      ) : null}
      {run.branch ? (
        <FollowOns runId={run.id} version={(run.pr?.reactions ?? []).map((reaction) => `${reaction.followOnRunId}:${reaction.state}`).join(',')} />
      ) : null}
      {run.setup ? <SetupStep setup={run.setup} /> : null}
      <div class="split">
        <div>
          <h2>Graph</h2>
          <Dag
            nodes={graph}
            states={states}
            tolerated={tolerated}
            selected={shown}
            onSelect={setSelected}
            label={`DAG of ${run.workflow}; choose a node to see its output`}
          />
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
                  <th scope="col" title="a running node: its processes' memory now; a finished one: their peak">
                    Memory
                  </th>
                </tr>
              </thead>
              <tbody>
                {graph.map(({ id }) => {
                  const node = run.nodes[id];
                  const memory = memoryOf(run, events, id);
                  return (
                    <tr key={id} data-node-id={id} class={shown === id ? 'selected' : ''}>
                      <td>
                        <button type="button" class="link mono" onClick={() => setSelected(id)}>
                          {id}
                        </button>
                      </td>
                      <td>
                        {node ? <StatusBadge status={node.status} /> : '—'}
                        {node?.tolerated ? (
                          <span class="badge tolerated" data-tolerated title="continue_on_error: the run went on as after a success">
                            tolerated
                          </span>
                        ) : null}
                      </td>
                      <td>{formatDuration(node ? spanMs(node.startedAt, node.finishedAt, now) : null)}</td>
                      <td>{formatCost(node?.costUsd)}</td>
                      <td data-memory={memory ? (memory.live ? 'live' : 'peak') : undefined} title={memory?.live ? 'now' : memory ? 'peak' : undefined}>
                        {memory ? `${formatSize(memory.bytes)}${memory.live ? ' now' : ''}` : '—'}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </div>
      </div>
      {shown ? <NodePanel run={run} events={events} nodeId={shown} permissions={shownPermissions} /> : null}
      {hasChanges && run.status !== 'paused' ? <Changes run={run} /> : null}
    </section>
  );
}
