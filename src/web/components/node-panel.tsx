import type { Permissions, RunDetail, RunEvent } from '../../client/types.js';
import { outputCut, outputOf } from '../run-events.js';
import { CutNotes } from './cut-notes.js';
import { NodeOutput, withoutTerminalControls } from './output.js';
import { StatusBadge } from './status.js';
import { ToolCalls } from './tool-calls.js';

/** The permission levels in a phrase (docs/contract.md, "Permissions"). */
const PERMISSIONS_MEANING: Record<string, string> = {
  read: 'reads and searches; writes no file, runs no command that changes one',
  edit: "edits files and runs commands in the run's directory",
  full: 'no checks at all',
};

/**
 * The node chosen in the graph or the table. `permissions` comes from the page: it falls back to
 * the node's definition, which only the run's graph holds.
 */
export function NodePanel({ run, events, nodeId, permissions }: { run: RunDetail; events: RunEvent[]; nodeId: string; permissions: Permissions | undefined }) {
  const node = run.nodes[nodeId];
  return (
    <div class="output-panel">
      <h2>
        Output of <span class="mono">{nodeId}</span> {node ? <StatusBadge status={node.status} /> : null}
      </h2>
      {node?.tolerated ? (
        // `continue_on_error`: a failure, said as one, but not the run's; it went on as after a success.
        <p class="note warn" data-tolerated>
          Failed, tolerated (continue_on_error): {node.error ?? 'failed'}. The run went on as after a success.
        </p>
      ) : node?.error ? (
        <p class="note error" role="alert">
          {node.error}
        </p>
      ) : null}
      {node?.status === 'failed' && node.logTail ? (
        // Why it failed, without reading the whole log: the API's last lines of stdout and stderr as they came.
        <div class="log-tail" data-log-tail={nodeId}>
          <h3>Last lines of its output</h3>
          <pre class="output">{withoutTerminalControls(node.logTail)}</pre>
          <p class="muted">
            The whole log:{' '}
            <code>
              svc runs logs {run.id} {nodeId}
            </code>
          </p>
        </div>
      ) : null}
      {node?.waitingFor ? (
        <p class="note" data-waiting-for={node.waitingFor}>
          {node.waitingFor === 'memory'
            ? 'Waiting for memory (SVC_MEMORY_BUDGET): it starts once its estimate fits beside the nodes running; its timeout starts then.'
            : "Waiting for an agent slot (SVC_MAX_CONCURRENT_AGENTS or the assistant's maxConcurrent); its timeout starts when it gets one."}
        </p>
      ) : null}
      {permissions ? (
        <p class="muted" data-permissions={permissions}>
          Agent permissions: <strong>{permissions}</strong> — {PERMISSIONS_MEANING[permissions]}
        </p>
      ) : null}
      {node?.sandbox === 'off' ? (
        <p class="note" data-sandbox="off">
          Unsandboxed ({node.sandboxOff ?? 'no reason recorded'}): its {permissions ? 'agent' : 'script'} could read the user's files and reach any host.
        </p>
      ) : node?.sandbox === 'on' ? (
        <p class="muted" data-sandbox="on">
          Sandbox: on — writes only its run's worktree, reads none of the user's secrets, reaches only the hosts its workflow allows
          {node.sandboxDenied ? `; refused ${node.sandboxDenied} call${node.sandboxDenied === 1 ? '' : 's'}` : ''}
        </p>
      ) : null}
      {node?.sandbox === 'on' && node.sandboxWarning ? (
        <p class="note" data-sandbox-warning>
          Sandbox weakened: {node.sandboxWarning}
        </p>
      ) : null}
      {node?.envGiven ? (
        <p class="muted" data-env-given={node.envGiven.join(',')}>
          Environment beyond the base set: {node.envGiven.length ? node.envGiven.join(', ') : 'none'}
        </p>
      ) : null}
      {node?.reason ? <p class="note">Skipped: {node.reason}</p> : null}
      <ToolCalls nodeId={nodeId} events={events} />
      <NodeOutput nodeId={nodeId} text={outputOf(run, events, nodeId) || (node?.status === 'running' ? '…' : '(no output)')} />
      <CutNotes nodeId={nodeId} output={outputCut(run, events, nodeId)} log={Boolean(node?.logTruncated)} />
    </div>
  );
}
