import type { EnvironmentView, Workspace, WorkspaceDetail } from '../../../client/index.js';
import type { CommandContext } from '../../context.js';
import { formatBytes, printJson, printTable } from '../../output.js';

export const WORKSPACE_ARG = ['<workspace>', 'workspace name, id, or unambiguous id prefix'] as const;

/** One workspace, as `svc workspace show` (with `disk`) and the commands that change one print it. */
export function printWorkspace(cmd: CommandContext, workspace: Workspace | WorkspaceDetail): void {
  if (cmd.globals.json) return printJson(cmd.io, workspace);
  const scan = workspace.env_scan;
  const lines = [
    ['name', workspace.name],
    ['id', workspace.id],
    ['source', workspace.source === 'clone' ? `clone of ${workspace.url}` : 'registered directory'],
    ['path', workspace.path],
    ['default branch', workspace.default_branch || '(not a git repository: runs execute in the directory itself)'],
    ['env vars', workspace.env_keys.length ? workspace.env_keys.join(', ') : '(none)'],
    ['.env scan', scan.keys.length ? `agent keys ${scan.keys.join(', ')} in ${scan.files.join(', ')}` : scan.status],
    ['agents allowed', workspace.allow_env_keys ? 'yes (consent on record)' : scan.keys.length ? 'no: blocked until `svc workspace consent --allow`' : 'yes'],
    ['created', workspace.created_at],
  ];
  if ('disk' in workspace) lines.push(['worktrees', `${workspace.disk.worktrees} on this server, ${formatBytes(workspace.disk.bytes)}`]);
  if ('pool' in workspace) lines.push(...poolLines(workspace.pool));
  if (scan.unreadable.length) lines.push(['unreadable', scan.unreadable.join(', ')]);
  const width = Math.max(...lines.map(([label]) => label!.length));
  for (const [label, value] of lines) cmd.io.out(`${label!.padEnd(width)}  ${value}\n`);
}

/** The pool of prepared worktrees on this server: how many `pool:` asks for, then one line per worktree (state, commit, when, path). */
function poolLines(pool: WorkspaceDetail['pool']): string[][] {
  const ready = pool.worktrees.filter((worktree) => worktree.state === 'ready').length;
  const lines = [
    ['pool', pool.size || pool.worktrees.length ? `${ready} of ${pool.size} ready on this server` : "none (.svc/worktree.yaml's pool: at the default branch)"],
  ];
  for (const worktree of pool.worktrees) {
    const when = worktree.prepared_at
      ? `prepared ${worktree.prepared_at}${worktree.prepared_by === 'cache' ? ' from the setup cache' : ''}`
      : `since ${worktree.started_at ?? '?'}`;
    lines.push(['', `${worktree.state.padEnd(9)} ${worktree.commit.slice(0, 12)}  ${when}  ${worktree.path}`]);
  }
  if (pool.error) lines.push(['pool error', pool.error]);
  return lines;
}

export async function printWorkspaces(cmd: CommandContext, workspaces: Workspace[]): Promise<void> {
  await printTable(
    cmd.io,
    // The name first: it is what a person reads and types (any command takes it for the id).
    ['NAME', 'ID', 'SOURCE', 'BRANCH', 'PATH'],
    workspaces.map((w) => [w.name, w.id, w.source, w.default_branch, w.path]),
  );
}

export async function printEnvironments(cmd: CommandContext, environments: EnvironmentView[]): Promise<void> {
  await printTable(
    cmd.io,
    ['RUN', 'BRANCH', 'STATUS', 'CREATED', 'PATH'],
    environments.map((e) => [e.run_id, e.branch, e.status, e.created_at, e.path]),
  );
}
