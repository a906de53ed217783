import { useState } from 'preact/hooks';
import { toDrawNodes } from '../../client/views.js';
import { client, errorText } from '../api.js';
import { Dag } from '../components/dag.js';
import { ErrorNote } from '../components/status.js';
import { navigate, useLoad } from '../hooks.js';

function RunForm({ name }: { name: string }) {
  const workspaces = useLoad(() => client.workspaces.list({ limit: 200 }), 'workspaces');
  const [message, setMessage] = useState('');
  const [workspaceId, setWorkspaceId] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="run-form"
      aria-label={`Run ${name}`}
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(undefined);
        try {
          const started = await client.runs.start(name, { message, ...(workspaceId ? { workspaceId } : {}) });
          navigate(`#/runs/${encodeURIComponent(started.runId)}`);
        } catch (err) {
          setError(errorText(err));
        } finally {
          setBusy(false);
        }
      }}
    >
      <h2>Run</h2>
      <label>
        Message
        <textarea name="message" rows={3} value={message} onInput={(e) => setMessage(e.currentTarget.value)} placeholder="What should this run do?" />
      </label>
      <label>
        Workspace{' '}
        <select name="workspace" value={workspaceId} onChange={(e) => setWorkspaceId(e.currentTarget.value)}>
          <option value="">none (the server's working directory)</option>
          {workspaces.data?.workspaces.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name} ({w.id})
            </option>
          ))}
        </select>
      </label>
      <button type="submit" class="primary" disabled={busy}>
        Start run
      </button>
      <ErrorNote error={error} />
    </form>
  );
}

function WorkflowDetail({ name }: { name: string }) {
  const doc = useLoad(async () => {
    const found = await client.workflows.get(name);
    const validation = await client.workflows.validate(found.workflow as unknown as Record<string, unknown>);
    return { ...found, errors: validation.errors ?? [] };
  }, name);
  if (!doc.data) return doc.error ? <ErrorNote error={doc.error} /> : <p class="note">Loading…</p>;
  const { workflow, filename, source, errors } = doc.data;
  return (
    <div class="workflow-detail" data-workflow={name}>
      <h2>{name}</h2>
      <p class="muted">
        {source} · <span class="mono">{filename}</span>
      </p>
      {workflow.description ? <p>{workflow.description}</p> : null}
      {errors.length > 0 ? (
        <div class="note error" role="alert">
          <strong>Invalid:</strong>
          <ul>
            {errors.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </div>
      ) : (
        <p class="note ok">Valid.</p>
      )}
      <Dag nodes={toDrawNodes(workflow)} label={`DAG of ${name}`} />
      <RunForm name={name} />
    </div>
  );
}

export function WorkflowsView({ name }: { name: string | undefined }) {
  const listing = useLoad(() => client.workflows.list(), 'workflows');
  return (
    <section aria-labelledby="workflows-title" class="master-detail">
      <div class="master">
        <h1 id="workflows-title">Workflows</h1>
        <ErrorNote error={listing.error} />
        <ul class="pick-list">
          {listing.data?.workflows.map((w) => (
            <li key={w.name}>
              <a href={`#/workflows/${encodeURIComponent(w.name)}`} aria-current={w.name === name ? 'page' : undefined}>
                <strong>{w.name}</strong>{' '}
                <span class="muted">
                  {w.nodes} nodes · {w.source}
                </span>
                {w.description ? <span class="muted block">{w.description}</span> : null}
              </a>
            </li>
          ))}
        </ul>
        {listing.data?.errors?.length ? (
          <div class="note error" role="alert">
            <strong>Files that failed to load</strong>
            <ul>
              {listing.data.errors.map((e) => (
                <li key={e.filename}>
                  <span class="mono">{e.filename}</span>: {e.error}
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </div>
      <div class="detail">{name ? <WorkflowDetail name={name} /> : <p class="note">Choose a workflow to see its graph and run it.</p>}</div>
    </section>
  );
}
