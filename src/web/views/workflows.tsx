import { useState } from 'preact/hooks';
import type { WorkflowListing } from '../../client/types.js';
import { toDrawNodes } from '../../client/views.js';
import { client, errorText } from '../api.js';
import { Dag } from '../components/dag.js';
import { ErrorNote } from '../components/status.js';
import { navigate, useLoad } from '../hooks.js';

/** Starts a run of the workflow: on its own workspace by default (a worktree of its own), or in place if the user picks none. */
function RunForm({ name, defaultWorkspace }: { name: string; defaultWorkspace: string | null }) {
  const workspaces = useLoad(() => client.workspaces.list({ limit: 200 }), 'workspaces');
  const [message, setMessage] = useState('');
  const [workspaceId, setWorkspaceId] = useState(defaultWorkspace ?? '');
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
          // "none" is asked for explicitly: in place, even where the server's directory is a workspace's checkout.
          const started = await client.runs.start(name, { message, ...(workspaceId ? { workspaceId } : { inPlace: true }) });
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
          <option value="">none: in place, in the server's working directory</option>
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

/** The link to a workflow: by name, and by its workspace when it has one (two workspaces may each have their own). */
const workflowHref = (name: string, workspaceId: string | null) =>
  `#/workflows/${encodeURIComponent(name)}${workspaceId ? `?workspace=${encodeURIComponent(workspaceId)}` : ''}`;

function WorkflowDetail({ name, workspace }: { name: string; workspace: string | undefined }) {
  const doc = useLoad(
    async () => {
      const found = await client.workflows.get(name, undefined, workspace ? { workspaceId: workspace } : {});
      const validation = await client.workflows.validate(found.workflow as unknown as Record<string, unknown>);
      return { ...found, errors: validation.errors ?? [] };
    },
    `${name} ${workspace ?? ''}`,
  );
  if (!doc.data) return doc.error ? <ErrorNote error={doc.error} /> : <p class="note">Loading…</p>;
  const { workflow, filename, source, errors, workspaceId } = doc.data;
  return (
    <div class="workflow-detail" data-workflow={name} data-workspace={workspaceId ?? ''}>
      <h2>{name}</h2>
      <p class="muted">
        {source}
        {workspaceId ? ` · workspace ${workspaceId}` : ''} · <span class="mono">{filename}</span>
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
      <RunForm name={name} defaultWorkspace={workspaceId} />
    </div>
  );
}

/** The chosen workflow once the listing says what it is: a workflow, or a file that failed to load. */
function Detail(props: { name: string | undefined; workspace: string | undefined; listing: WorkflowListing | undefined; broken: FileErrors[] }) {
  const { name, workspace, listing, broken } = props;
  if (!name) return <p class="note">Choose a workflow to see its graph and run it.</p>;
  if (!listing) return <p class="note">Loading…</p>;
  const file = broken.find((candidate) => candidate.name === name);
  if (file && !listing.workflows.some((workflow) => workflow.name === name)) return <BrokenFile name={name} file={file} />;
  return <WorkflowDetail name={name} workspace={workspace} />;
}

export function WorkflowsView({ name, workspace }: { name: string | undefined; workspace: string | undefined }) {
  const listing = useLoad(() => client.workflows.list(), 'workflows');
  const broken = byFile(listing.data?.errors ?? []);
  return (
    <section aria-labelledby="workflows-title" class="master-detail">
      <div class="master">
        <h1 id="workflows-title">Workflows</h1>
        <ErrorNote error={listing.error} />
        <ul class="pick-list">
          {listing.data?.workflows.map((w) => (
            <li key={`${w.name} ${w.workspaceId ?? ''}`}>
              <a href={workflowHref(w.name, w.workspaceId)} aria-current={w.name === name && (w.workspaceId ?? undefined) === workspace ? 'page' : undefined}>
                <strong>{w.name}</strong>{' '}
                <span class="muted">
                  {w.nodes} nodes · {w.workspaceId ? `workspace ${w.workspaceName ?? w.workspaceId}` : w.source}
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
        <Detail name={name} workspace={workspace} listing={listing.data} broken={broken} />
      </div>
    </section>
  );
}
