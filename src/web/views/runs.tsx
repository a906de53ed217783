import { useState } from 'preact/hooks';
import { deniedToolCalls, deniedToolsNote } from '../../client/tool-activity.js';
import { RUN_STATUSES, type RunStatus } from '../../client/types.js';
import { client } from '../api.js';
import { ErrorNote, StatusBadge } from '../components/status.js';
import { formatCost, formatDuration, formatTime, spanMs } from '../format.js';
import { navigate, useDebounced, useLoad, useNow, useStream } from '../hooks.js';

const PAGE = 50;
const SINCE_CHOICES = [
  { value: '', label: 'any time' },
  { value: '1h', label: 'last hour' },
  { value: '24h', label: 'last 24 hours' },
  { value: '7d', label: 'last 7 days' },
];

/** The query as the hash carries it, so a filtered list can be bookmarked and the back button works. */
function hashFor(filters: { status: string[]; workflow: string; version: string; since: string; offset: number }): string {
  const query = new URLSearchParams();
  if (filters.status.length > 0) query.set('status', filters.status.join(','));
  if (filters.workflow) query.set('workflow', filters.workflow);
  if (filters.version) query.set('version', filters.version);
  if (filters.since) query.set('since', filters.since);
  if (filters.offset > 0) query.set('offset', String(filters.offset));
  const text = query.toString();
  return `#/runs${text ? `?${text}` : ''}`;
}

export function RunsView({ query }: { query: URLSearchParams }) {
  const status = (query.get('status') ?? '').split(',').filter((s): s is RunStatus => (RUN_STATUSES as readonly string[]).includes(s));
  const workflow = query.get('workflow') ?? '';
  // A version of the workflow (a run's `definitionHash`): the run detail links here (docs/decisions.md, "Versions").
  const version = query.get('version') ?? '';
  const since = query.get('since') ?? '';
  const offset = Math.max(0, Number(query.get('offset')) || 0);
  const filters = { status, workflow, version, since, offset };
  const key = hashFor(filters);
  const runs = useLoad(
    () =>
      client.dashboard.runs({
        ...(status.length > 0 ? { status: status.join(',') } : {}),
        ...(workflow ? { workflow } : {}),
        ...(version ? { definitionHash: version } : {}),
        ...(since ? { since } : {}),
        limit: PAGE,
        offset,
      }),
    key,
  );
  const workflows = useLoad(() => client.workflows.list(), 'workflows');
  const reload = useDebounced(runs.reload);
  // Every run event may change a row, its counts or the order; output chunks, tool calls and memory figures change none of them.
  // A stream that (re)opens may have missed some (a server restart, the page's own start).
  useStream(
    '__dashboard__',
    (event) => {
      if ('runId' in event && !['node_output', 'setup_output', 'agent_tool', 'node_memory'].includes(event.type)) reload();
    },
    { onOpen: reload },
  );
  const anyRunning = runs.data?.runs.some((run) => run.status === 'running') ?? false;
  const now = useNow(anyRunning);
  const [workflowText, setWorkflowText] = useState(workflow);

  const toggle = (s: RunStatus) => {
    const next = status.includes(s) ? status.filter((x) => x !== s) : [...status, s];
    navigate(hashFor({ ...filters, status: next, offset: 0 }));
  };
  const counts = runs.data?.counts;
  const total = counts ? Object.values(counts).reduce((sum, n) => sum + n, 0) : undefined;

  return (
    <section aria-labelledby="runs-title">
      <h1 id="runs-title">Runs</h1>
      <div class="filters" role="group" aria-label="Filter by state">
        <button type="button" aria-pressed={status.length === 0} onClick={() => navigate(hashFor({ ...filters, status: [], offset: 0 }))}>
          all <span class="count">{total ?? ''}</span>
        </button>
        {RUN_STATUSES.map((s) => (
          <button type="button" key={s} class={`chip status-${s}`} aria-pressed={status.includes(s)} data-status={s} onClick={() => toggle(s)}>
            {s} <span class="count">{counts?.[s] ?? ''}</span>
          </button>
        ))}
      </div>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          navigate(hashFor({ ...filters, workflow: workflowText.trim(), offset: 0 }));
        }}
      >
        <label>
          Workflow <input list="workflow-names" value={workflowText} onInput={(e) => setWorkflowText(e.currentTarget.value)} placeholder="any" />
        </label>
        <datalist id="workflow-names">
          {workflows.data?.workflows.map((w) => (
            <option key={w.name} value={w.name} />
          ))}
        </datalist>
        <label>
          Started{' '}
          <select value={since} onChange={(e) => navigate(hashFor({ ...filters, since: e.currentTarget.value, offset: 0 }))}>
            {SINCE_CHOICES.map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Filter</button>
        {version ? (
          <button type="button" data-version-filter onClick={() => navigate(hashFor({ ...filters, version: '', offset: 0 }))}>
            version <span class="mono">{version.slice(0, 8)}</span> ×
          </button>
        ) : null}
      </form>
      <ErrorNote error={runs.error} />
      {runs.data && runs.data.runs.length === 0 ? (
        <p class="note">
          No runs match. Start one from <a href="#/workflows">Workflows</a>.
        </p>
      ) : null}
      {runs.data && runs.data.runs.length > 0 ? (
        <div class="table-wrap">
          <table class="runs">
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Workflow</th>
                <th scope="col">State</th>
                <th scope="col" class="wide-only">
                  Trigger
                </th>
                <th scope="col" class="wide-only">
                  Workspace
                </th>
                <th scope="col" class="wide-only">
                  Started
                </th>
                <th scope="col">Duration</th>
                <th scope="col">Cost</th>
                <th scope="col" class="wide-only">
                  Nodes
                </th>
              </tr>
            </thead>
            <tbody>
              {runs.data.runs.map((run) => {
                const done = (run.nodeCounts.completed ?? 0) + (run.nodeCounts.skipped ?? 0);
                const nodes = Object.values(run.nodeCounts).reduce((sum, n) => sum + n, 0);
                const duration = run.status === 'running' ? spanMs(run.startedAt, null, now) : run.durationMs;
                return (
                  <tr key={run.id} data-run-id={run.id} data-status={run.status}>
                    <td>
                      <a href={`#/runs/${encodeURIComponent(run.id)}`} class="mono">
                        {run.id.slice(0, 12)}
                      </a>
                    </td>
                    <td>{run.workflow}</td>
                    <td>
                      <StatusBadge status={run.status} />
                      {run.currentNode ? <span class="muted wide-only"> {run.currentNode}</span> : null}
                      {deniedToolCalls(run).count > 0 ? (
                        <span class="denied-mark" title={deniedToolsNote(run)}>
                          {' '}
                          tools denied
                        </span>
                      ) : null}
                    </td>
                    <td class="wide-only">{run.trigger}</td>
                    <td class="mono wide-only">{run.workspaceId ?? '—'}</td>
                    <td class="wide-only">{formatTime(run.startedAt ?? run.createdAt)}</td>
                    <td>{formatDuration(duration)}</td>
                    <td>{formatCost(run.costUsd)}</td>
                    <td class="wide-only">
                      {done}/{nodes}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      {runs.data && runs.data.total > PAGE ? (
        <nav class="pager" aria-label="Pages">
          <button type="button" disabled={offset === 0} onClick={() => navigate(hashFor({ ...filters, offset: Math.max(0, offset - PAGE) }))}>
            Newer
          </button>
          <span>
            {offset + 1}–{Math.min(offset + PAGE, runs.data.total)} of {runs.data.total}
          </span>
          <button type="button" disabled={offset + PAGE >= runs.data.total} onClick={() => navigate(hashFor({ ...filters, offset: offset + PAGE }))}>
            Older
          </button>
        </nav>
      ) : null}
    </section>
  );
}
