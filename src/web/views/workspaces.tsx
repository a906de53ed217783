import type { WorkspaceDetail as WorkspaceDetailView } from '../../client/types.js';
import { client } from '../api.js';
import { ErrorNote, StatusBadge } from '../components/status.js';
import { LandingQueue } from '../components/landing-queue.js';
import { formatTime } from '../format.js';
import { useLoad } from '../hooks.js';

/** When and how a pool worktree was prepared, as `svc workspace show` says it. */
function preparedWhen(worktree: WorkspaceDetailView['pool']['worktrees'][number]): string {
  if (!worktree.prepared_at) return `since ${formatTime(worktree.started_at)}`;
  return `prepared ${formatTime(worktree.prepared_at)}${{ cache: ' from the setup cache', setup: ' by its setup', none: '' }[worktree.prepared_by ?? 'none']}`;
}

function WorkspaceDetail({ id }: { id: string }) {
  const data = useLoad(async () => ({ workspace: await client.workspaces.get(id), environments: (await client.workspaces.environments(id)).environments }), id);
  if (!data.data) return data.error ? <ErrorNote error={data.error} /> : <p class="note">Loading…</p>;
  const { workspace, environments } = data.data;
  const scan = workspace.env_scan;
  return (
    <div data-workspace-id={workspace.id}>
      <h2>{workspace.name}</h2>
      <dl class="facts">
        <dt>Id</dt>
        <dd class="mono">{workspace.id}</dd>
        <dt>Source</dt>
        <dd>{workspace.source === 'clone' ? <span class="mono">{workspace.url}</span> : 'a directory registered by path'}</dd>
        <dt>Path</dt>
        <dd class="mono">{workspace.path}</dd>
        <dt>Default branch</dt>
        <dd class="mono">{workspace.default_branch || '—'}</dd>
        <dt>Env vars</dt>
        <dd class="mono">{workspace.env_keys.length > 0 ? workspace.env_keys.join(', ') : 'none'}</dd>
        <dt>.env scan</dt>
        <dd>
          {scan.status}
          {scan.keys.length > 0 ? (
            <>
              {' '}
              — agent keys {scan.keys.join(', ')} in {scan.files.join(', ')}
            </>
          ) : null}
          {scan.unreadable.length > 0 ? <> — unreadable: {scan.unreadable.join(', ')}</> : null}
        </dd>
        <dt>Consent</dt>
        <dd data-consent={String(workspace.allow_env_keys)}>
          {workspace.allow_env_keys
            ? 'given: agents run despite the keys in .env files'
            : scan.status === 'keys_found'
              ? `not given: agent nodes and messages here are blocked (svc workspace consent ${workspace.id} --allow)`
              : 'not needed'}
        </dd>
        <dt>Pool</dt>
        <dd data-pool-size={workspace.pool.size}>
          {workspace.pool.size === 0 && workspace.pool.worktrees.length === 0
            ? 'none'
            : `${workspace.pool.worktrees.filter((worktree) => worktree.state === 'ready').length} of ${workspace.pool.size} prepared worktrees ready`}
          {workspace.pool.worktrees.map((worktree) => (
            <div key={worktree.name} data-pool-name={worktree.name} data-pool-state={worktree.state} title={worktree.path}>
              <StatusBadge status={worktree.state} />{' '}
              <span class="mono" data-pool-commit>
                {worktree.commit.slice(0, 12)}
              </span>{' '}
              {preparedWhen(worktree)}
            </div>
          ))}
          {workspace.pool.error ? <p class="note error">{workspace.pool.error}</p> : null}
        </dd>
      </dl>
      <LandingQueue workspaceId={workspace.id} />
      <h3>Environments</h3>
      {environments.length === 0 ? (
        <p class="note">No worktrees.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Branch</th>
                <th scope="col">State</th>
                <th scope="col">Created</th>
                <th scope="col">Path</th>
              </tr>
            </thead>
            <tbody>
              {environments.map((env) => (
                <tr key={env.id}>
                  <td>
                    <a class="mono" href={`#/runs/${encodeURIComponent(env.run_id)}`}>
                      {env.run_id.slice(0, 12)}
                    </a>
                  </td>
                  <td class="mono">{env.branch}</td>
                  <td>
                    <StatusBadge status={env.status} />
                  </td>
                  <td>{formatTime(env.created_at)}</td>
                  <td class="mono">{env.path}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

export function WorkspacesView({ workspaceId }: { workspaceId: string | undefined }) {
  const list = useLoad(() => client.workspaces.list({ limit: 200 }), 'workspaces');
  return (
    <section aria-labelledby="workspaces-title" class="master-detail">
      <div class="master">
        <h1 id="workspaces-title">Workspaces</h1>
        <ErrorNote error={list.error} />
        {list.data && list.data.workspaces.length === 0 ? <p class="note">None yet: `svc workspace add &lt;url|path&gt;`.</p> : null}
        <ul class="pick-list">
          {list.data?.workspaces.map((w) => (
            <li key={w.id}>
              <a href={`#/workspaces/${encodeURIComponent(w.id)}`} aria-current={w.id === workspaceId ? 'page' : undefined}>
                <strong>{w.name}</strong> <span class="muted mono">{w.id}</span>
              </a>
            </li>
          ))}
        </ul>
      </div>
      <div class="detail">{workspaceId ? <WorkspaceDetail id={workspaceId} /> : <p class="note">Choose a workspace.</p>}</div>
    </section>
  );
}
