/**
 * The repository a run on a workspace executes from on this server (docs/contract.md, "Workspaces"). Several servers on one database each keep their own clone of a workspace under
 * their own `SVC_HOME`, made on demand by the first run they execute on it; a directory
 * registered by path is the user's, and must exist at that path on every server that runs it.
 */

import { mkdir, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DomainError } from '../shared/errors.js';
import { checkCloneUrl } from './clone-source.js';
import { runGit } from './git.js';
import type { WorkspaceRecord } from './records.js';

export interface LocalRepositoryDeps {
  /** This server's `$SVC_HOME`. */
  home: string;
  env: NodeJS.ProcessEnv;
  gitTimeoutMs?: number;
}

/**
 * For a clone, this server's `<home>/workspaces/<id>/source`, cloned now from the workspace's url
 * (with the same prompt-free git as registration) when this server has none yet; for a directory
 * registered by path, that directory, or a 409 `workspace_path_missing` naming it and this server.
 */
export async function localRepository(record: WorkspaceRecord, deps: LocalRepositoryDeps): Promise<string> {
  const server = `server ${hostname()} (SVC_HOME ${deps.home})`;
  if (record.source === 'path' || record.url === undefined) {
    if (await isDirectory(record.path)) return record.path;
    throw new DomainError(
      'workspace_path_missing',
      `Workspace ${record.id} is registered by path ${record.path}, which does not exist on ${server}; ` +
        'a workspace registered by path must exist at that path on every server that runs it.',
      { workspaceId: record.id, path: record.path },
    );
  }
  const own = join(deps.home, 'workspaces', record.id);
  const source = join(own, 'source');
  if (await isDirectory(join(source, '.git'))) return source;
  // Checked again: the url comes from the shared database, and git must never read it as an option.
  const check = checkCloneUrl(record.url);
  if (!check.ok)
    throw new DomainError('workspace_clone_failed', `Workspace ${record.id} cannot be cloned on ${server}: ${check.reason}.`, { workspaceId: record.id });
  await mkdir(own, { recursive: true });
  // What an earlier attempt left half-made: git refuses to clone into a directory that is not empty.
  await rm(source, { recursive: true, force: true });
  try {
    await runGit(['clone', '--quiet', '--', check.url, source], { cwd: own, env: deps.env, timeoutMs: deps.gitTimeoutMs });
  } catch (error) {
    await rm(source, { recursive: true, force: true });
    throw new DomainError('workspace_clone_failed', `git clone of workspace ${record.id} on ${server} failed: ${(error as Error).message}`, {
      workspaceId: record.id,
      url: check.url,
    });
  }
  return source;
}

export async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}
