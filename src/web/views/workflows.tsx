import { useState } from 'preact/hooks';
import type { WorkflowListing } from '../../client/types.js';
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

interface FileErrors {
  filename: string;
  /** What the file is called in links: its name without `.yaml`/`.yml`, as a workflow in it would be. */
  name: string;
  errors: string[];
}

/** The listing's load errors, one entry per file (a file may have many). */
function byFile(errors: ReadonlyArray<{ filename: string; error: string }>): FileErrors[] {
  const files = new Map<string, FileErrors>();
  for (const { filename, error } of errors) {
    const name = (filename.split(/[\\/]/).pop() ?? filename).replace(/\.ya?ml$/i, '');
    const file = files.get(filename) ?? { filename, name, errors: [] };
    file.errors.push(error);
    files.set(filename, file);
  }
  return [...files.values()];
}

function ErrorList({ errors }: { errors: string[] }) {
  return (
    <ul>
      {errors.map((line, i) => (
        <li key={i}>{line}</li>
      ))}
    </ul>
  );
}

/** A file that does not load is no workflow the API can answer for: its errors say why. */
function BrokenFile({ name, file }: { name: string; file: FileErrors }) {
  return (
    <div class="workflow-detail" data-workflow={name}>
      <h2>{name}</h2>
      <div class="note error" role="alert" data-invalid-file={file.filename}>
        <strong>
          Invalid: <span class="mono">{file.filename}</span> does not load
        </strong>
        <ErrorList errors={file.errors} />
      </div>
    </div>
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
          <ErrorList errors={errors} />
        </div>
      ) : (
        <p class="note ok">Valid.</p>
      )}
      <Dag nodes={toDrawNodes(workflow)} label={`DAG of ${name}`} />
      <RunForm name={name} />
    </div>
  );
}

/** The chosen workflow once the listing says what it is: a workflow, or a file that failed to load. */
function Detail({ name, listing, broken }: { name: string | undefined; listing: WorkflowListing | undefined; broken: FileErrors[] }) {
  if (!name) return <p class="note">Choose a workflow to see its graph and run it.</p>;
  if (!listing) return <p class="note">Loading…</p>;
  const file = broken.find((candidate) => candidate.name === name);
  if (file && !listing.workflows.some((workflow) => workflow.name === name)) return <BrokenFile name={name} file={file} />;
  return <WorkflowDetail name={name} />;
}

export function WorkflowsView({ name }: { name: string | undefined }) {
  const listing = useLoad(() => client.workflows.list(), 'workflows');
  const broken = byFile(listing.data?.errors ?? []);
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
        {broken.length > 0 ? (
          <div class="note error" role="alert">
            <strong>Files that failed to load</strong>
            <ul class="pick-list">
              {broken.map((file) => (
                <li key={file.filename}>
                  <a href={`#/workflows/${encodeURIComponent(file.name)}`} aria-current={file.name === name ? 'page' : undefined} class="mono">
                    {file.filename}
                  </a>{' '}
                  <span>
                    {file.errors.length} {file.errors.length === 1 ? 'error' : 'errors'}
                  </span>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </div>
      <div class="detail">
        <Detail name={name} listing={listing.data} broken={broken} />
      </div>
    </section>
  );
}
