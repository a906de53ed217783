/**
 * Registering a workspace (docs/contract.md, "Workspaces"): a repository cloned into
 * `<home>/workspaces/<id>/source`, or a directory the user names; one workspace per clone URL or
 * real path (insert-if-absent on its source key).
 */

import { mkdir, realpath, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { DomainError, isDomainError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { checkCloneUrl, normalizeCloneUrl, repositoryName } from './clone-source.js';
import { scanEnvFiles, type EnvScan } from './env-scan.js';
import { currentBranch, GitError, gitTopLevel, runGit } from './git.js';
import { toWorkspaceView, type Workspace, type WorkspaceRecord } from './records.js';
import type { WorkspaceRepositories } from './repository.js';

export interface RegistrationDeps {
  repositories: WorkspaceRepositories;
  /** `$SVC_HOME`: a clone goes to `<home>/workspaces/<id>/source`. */
  home: string;
  /** The environment git runs with. */
  env: NodeJS.ProcessEnv;
  gitTimeoutMs?: number | undefined;
  now: () => string;
}

/** The scan as a record keeps it. */
export const stripScan = (scan: EnvScan) => ({ status: scan.status, files: scan.files, keys: scan.keys, unreadable: scan.unreadable });

export async function registerWorkspace(input: { url?: string | undefined; path?: string | undefined }, deps: RegistrationDeps): Promise<Workspace> {
  const hasUrl = input.url !== undefined;
  const hasPath = input.path !== undefined;
  if (hasUrl === hasPath) {
    throw new DomainError('invalid_request', 'Give exactly one of url (a repository to clone) or path (a local directory).', [
      { path: hasUrl ? 'url' : 'body', message: hasUrl ? 'url and path cannot both be given' : 'url or path is required' },
    ]);
  }
  return hasUrl ? registerClone(input.url!, deps) : registerPath(input.path!, deps);
}

async function registerPath(given: string, deps: RegistrationDeps): Promise<Workspace> {
  const invalid = (message: string) => new DomainError('invalid_request', `path ${message} (got '${given}').`, [{ path: 'path', message }]);
  if (given.startsWith('-')) throw invalid('must not start with "-"');
  if (!given.startsWith('/')) throw invalid('must be an absolute path');
  let real: string;
  try {
    real = await realpath(given);
    if (!(await stat(real)).isDirectory()) throw invalid('is not a directory');
  } catch (error) {
    if (isDomainError(error)) throw error;
    throw invalid('is not an existing directory');
  }
  const sourceKey = `path:${real}`;
  await refuseDuplicate(sourceKey, real, deps);
  // Runs get worktrees of the whole repository, and the env-leak gate scans the registered
  // directory: a directory inside a repository would leave the root's .env files unscanned.
  const top = await gitTopLevel(real, deps.env);
  if (top !== undefined && (await realpath(top)) !== real) throw invalid(`is inside the git repository ${top}; register its top directory`);
  const git = top !== undefined;
  const record: WorkspaceRecord = {
    id: newId('ws'),
    name: basename(real) || real,
    path: real,
    source: 'path',
    default_branch: git ? await currentBranch(real, deps.env) : '',
    allow_env_keys: false,
    env_scan: stripScan(await scanEnvFiles(real)),
    env_keys: [],
    created_at: deps.now(),
    source_key: sourceKey,
  };
  return insert(record, deps);
}

async function registerClone(given: string, deps: RegistrationDeps): Promise<Workspace> {
  const check = checkCloneUrl(given);
  // The reason never repeats the URL: it may carry a credential the check refused.
  if (!check.ok) throw new DomainError('invalid_request', `${check.reason}.`, [{ path: 'url', message: check.reason }]);
  const sourceKey = `url:${normalizeCloneUrl(check.url)}`;
  await refuseDuplicate(sourceKey, check.url, deps);
  const id = newId('ws');
  const own = join(deps.home, 'workspaces', id);
  const source = join(own, 'source');
  await mkdir(own, { recursive: true });
  try {
    // `--` ends git's options: nothing in the URL can be read as one.
    await runGit(['clone', '--quiet', '--', check.url, source], { cwd: own, env: deps.env, timeoutMs: deps.gitTimeoutMs });
  } catch (error) {
    await rm(own, { recursive: true, force: true });
    const message = error instanceof GitError ? error.message : (error as Error).message;
    throw new DomainError('clone_failed', `git clone failed: ${message}`, { url: check.url });
  }
  const record: WorkspaceRecord = {
    id,
    name: repositoryName(check.url),
    url: check.url,
    path: source,
    source: 'clone',
    default_branch: await currentBranch(source, deps.env),
    allow_env_keys: false,
    env_scan: stripScan(await scanEnvFiles(source)),
    env_keys: [],
    created_at: deps.now(),
    source_key: sourceKey,
  };
  try {
    return await insert(record, deps);
  } catch (error) {
    await rm(own, { recursive: true, force: true });
    throw error;
  }
}

async function refuseDuplicate(sourceKey: string, what: string, deps: RegistrationDeps): Promise<void> {
  const existing = await deps.repositories.workspaces.findBySourceKey(sourceKey);
  if (existing) throw exists(existing, what);
}

function exists(existing: WorkspaceRecord, what: string): DomainError {
  return new DomainError('workspace_exists', `${what} is already workspace ${existing.id}.`, { id: existing.id });
}

async function insert(record: WorkspaceRecord, deps: RegistrationDeps): Promise<Workspace> {
  const result = await deps.repositories.workspaces.insertIfAbsent(record);
  if (!result.inserted) throw exists(result.existing, record.url ?? record.path);
  return toWorkspaceView(result.record);
}
