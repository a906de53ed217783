import type { StartedRun } from '../../../client/index.js';

/**
 * `svc run`'s first line: where the run edits files. On a workspace, its worktree and branch (the
 * user's checkout is not touched); otherwise `in place`, with why — `--in-place`, or no registered
 * workspace holds the directory (docs/contract.md, "Workspaces").
 */
export function placeLine(workflow: string, started: StartedRun, options: { inPlace: boolean; atLaunch: boolean; workspaceName?: string }): string {
  const { cwd, branch } = started;
  // The workspace as the user names it, its id beside: `svc workspace show` takes either.
  const workspaceId = started.workspaceId === null ? null : options.workspaceName ? `${options.workspaceName} (${started.workspaceId})` : started.workspaceId;
  if (workspaceId === null) {
    const why = options.inPlace ? '--in-place: no worktree, no branch' : 'no registered workspace holds it';
    return `${workflow}: in place in ${cwd} (${why})`;
  }
  if (branch !== null) return `${workflow}: on workspace ${workspaceId}, in worktree ${cwd} (branch ${branch}); your checkout is not touched`;
  // A shared database: the server that takes the run makes its worktree.
  if (options.atLaunch) return `${workflow}: on workspace ${workspaceId}, in a worktree of its own once a server takes the run`;
  return `${workflow}: on workspace ${workspaceId}, in place in ${cwd} (the workspace is no git repository: no worktree)`;
}
