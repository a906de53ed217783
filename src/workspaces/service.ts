/**
 * Workspaces (docs/decisions.md, Workspaces): a repository svc cloned, or a directory the user
 * registered, in which runs execute in git worktrees of their own; the workspace's env values; and
 * the env-leak gate with its audit entries. The server and the CLI reach this through the API.
 */

import { mkdir, realpath, rm, stat } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';
import type { Actor } from '../shared/actor.js';
import { ApiError, badRequest, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { Logger } from '../shared/logger.js';
import { checkCloneUrl, normalizeCloneUrl, repositoryName } from './clone-source.js';
import { scanEnvFiles, type EnvScan } from './env-scan.js';
import { currentBranch, GitError, isGitRepository, runGit } from './git.js';
import { toWorkspaceView, type Environment, type EnvironmentView, type Workspace, type WorkspaceRecord } from './records.js';
import type { Paging, WorkspaceRepositories } from './repository.js';

/** Names a workspace env var may have (what a shell accepts, upper case by convention). */
export const ENV_KEY_PATTERN = /^[A-Z_][A-Z0-9_]*$/;

/** Who changed the consent bit, as the audit entry records it. */
export type ConsentActor = Actor;

/** What the workspaces need to know about runs, without depending on the engine. */
export interface RunLookup {
  /** `undefined` when no such run exists; `finishedAt` null while it can still change. */
  finishedAt(runId: string): Promise<string | null | undefined>;
}

export interface WorkspaceServiceDeps {
  repositories: WorkspaceRepositories;
  logger: Logger;
  /** `$SVC_HOME`: clones and worktrees live under `<home>/workspaces/<id>/`. */
  home: string;
  /** The environment git runs with. */
  env: NodeJS.ProcessEnv;
  gitTimeoutMs?: number;
  runs: RunLookup;
  now?: () => Date;
}

export interface RunPlace {
  /** The run's working directory: its worktree, or the directory itself when it is no git repository. */
  cwd: string;
  environment: Environment | null;
}

const stripScan = (scan: EnvScan) => ({ status: scan.status, files: scan.files, keys: scan.keys, unreadable: scan.unreadable });

export class WorkspaceService {
  readonly #deps: WorkspaceServiceDeps;
  constructor(deps: WorkspaceServiceDeps) {
    this.#deps = deps;
  }

  get #repos() {
    return this.#deps.repositories;
  }

  #now(): string {
    return (this.#deps.now?.() ?? new Date()).toISOString();
  }

  /** `<home>/workspaces/<id>`: everything svc made for a workspace, and nothing else, lives here. */
  #ownDir(id: string): string {
    return join(this.#deps.home, 'workspaces', id);
  }

  async register(input: { url?: string | undefined; path?: string | undefined }): Promise<Workspace> {
    const hasUrl = input.url !== undefined;
    const hasPath = input.path !== undefined;
    if (hasUrl === hasPath) {
      throw badRequest('invalid_request', 'Give exactly one of url (a repository to clone) or path (a local directory).', [
        { path: hasUrl ? 'url' : 'body', message: hasUrl ? 'url and path cannot both be given' : 'url or path is required' },
      ]);
    }
    return hasUrl ? this.#registerClone(input.url!) : this.#registerPath(input.path!);
  }

  async #registerPath(given: string): Promise<Workspace> {
    const invalid = (message: string) => badRequest('invalid_request', `path ${message} (got '${given}').`, [{ path: 'path', message }]);
    if (given.startsWith('-')) throw invalid('must not start with "-"');
    if (!given.startsWith('/')) throw invalid('must be an absolute path');
    let real: string;
    try {
      real = await realpath(given);
      if (!(await stat(real)).isDirectory()) throw invalid('is not a directory');
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw invalid('is not an existing directory');
    }
    const sourceKey = `path:${real}`;
    await this.#refuseDuplicate(sourceKey, real);
    const git = await isGitRepository(real, this.#deps.env);
    const record: WorkspaceRecord = {
      id: newId('ws'),
      name: basename(real) || real,
      path: real,
      source: 'path',
      default_branch: git ? await currentBranch(real, this.#deps.env) : '',
      allow_env_keys: false,
      env_scan: stripScan(await scanEnvFiles(real)),
      env_keys: [],
      created_at: this.#now(),
      source_key: sourceKey,
    };
    return this.#insert(record);
  }

  async #registerClone(given: string): Promise<Workspace> {
    const check = checkCloneUrl(given);
    if (!check.ok) throw badRequest('invalid_request', `${check.reason}.`, [{ path: 'url', message: check.reason }]);
    const sourceKey = `url:${normalizeCloneUrl(check.url)}`;
    await this.#refuseDuplicate(sourceKey, check.url);
    const id = newId('ws');
    const own = this.#ownDir(id);
    const source = join(own, 'source');
    await mkdir(own, { recursive: true });
    try {
      // `--` ends git's options: nothing in the URL can be read as one.
      await runGit(['clone', '--quiet', '--', check.url, source], { cwd: own, env: this.#deps.env, timeoutMs: this.#deps.gitTimeoutMs });
    } catch (error) {
      await rm(own, { recursive: true, force: true });
      const message = error instanceof GitError ? error.message : (error as Error).message;
      throw new ApiError(400, 'clone_failed', `git clone failed: ${message}`, { url: check.url });
    }
    const record: WorkspaceRecord = {
      id,
      name: repositoryName(check.url),
      url: check.url,
      path: source,
      source: 'clone',
      default_branch: await currentBranch(source, this.#deps.env),
      allow_env_keys: false,
      env_scan: stripScan(await scanEnvFiles(source)),
      env_keys: [],
      created_at: this.#now(),
      source_key: sourceKey,
    };
    try {
      return await this.#insert(record);
    } catch (error) {
      await rm(own, { recursive: true, force: true });
      throw error;
    }
  }

  async #refuseDuplicate(sourceKey: string, what: string): Promise<void> {
    const existing = await this.#repos.workspaces.findBySourceKey(sourceKey);
    if (existing) throw this.#exists(existing, what);
  }

  #exists(existing: WorkspaceRecord, what: string): ApiError {
    return new ApiError(409, 'workspace_exists', `${what} is already workspace ${existing.id}.`, { id: existing.id });
  }

  async #insert(record: WorkspaceRecord): Promise<Workspace> {
    const result = await this.#repos.workspaces.insertIfAbsent(record);
    if (!result.inserted) throw this.#exists(result.existing, record.url ?? record.path);
    return toWorkspaceView(result.record);
  }

  async #record(id: string): Promise<WorkspaceRecord> {
    const record = await this.#repos.workspaces.get(id);
    if (!record) throw notFound('workspace_not_found', `No workspace '${id}'.`);
    return record;
  }

  async get(id: string): Promise<Workspace> {
    return toWorkspaceView(await this.#record(id));
  }

  async list(paging?: Paging): Promise<{ workspaces: Workspace[]; total: number }> {
    const { items, total } = await this.#repos.workspaces.list(paging);
    return { workspaces: items.map(toWorkspaceView), total };
  }

  async environments(id: string): Promise<EnvironmentView[]> {
    await this.#record(id);
    const { items } = await this.#repos.environments.list({ workspaceId: id });
    return Promise.all(items.map((environment) => this.#environmentView(environment)));
  }

  async #environmentView(environment: Environment): Promise<EnvironmentView> {
    const finishedAt = await this.#deps.runs.finishedAt(environment.run_id);
    // A run that is gone has ended too; its worktree is only waiting for clean-up.
    const ended = finishedAt !== null;
    return { ...environment, status: ended ? 'ended' : 'active', ended_at: finishedAt ?? null };
  }

  /** The consent bit, with its warn-level audit entry (docs/decisions.md, Log entries). */
  async setConsent(id: string, allow: boolean, actor: ConsentActor): Promise<Workspace> {
    const record = await this.#record(id);
    const scan = stripScan(await scanEnvFiles(record.path));
    const updated = (await this.#repos.workspaces.update(id, { allow_env_keys: allow, env_scan: scan }))!;
    this.#deps.logger.warn(allow ? 'env_leak_consent_granted' : 'env_leak_consent_revoked', {
      workspaceId: id,
      path: record.path,
      files: scan.files,
      keys: scan.keys,
      scanStatus: scan.status,
      actor,
    });
    return toWorkspaceView(updated);
  }

  async setEnv(id: string, values: Record<string, string>): Promise<Workspace> {
    await this.#record(id);
    const bad = Object.keys(values).filter((key) => !ENV_KEY_PATTERN.test(key));
    if (bad.length) {
      throw badRequest(
        'invalid_request',
        `Env var names must match ${ENV_KEY_PATTERN.source}: ${bad.join(', ')}.`,
        bad.map((key) => ({ path: key, message: 'not a valid env var name' })),
      );
    }
    const names = await this.#repos.secrets.merge(id, values);
    return toWorkspaceView((await this.#repos.workspaces.update(id, { env_keys: names }))!);
  }

  async unsetEnv(id: string, key: string): Promise<Workspace> {
    await this.#record(id);
    if (!(await this.#repos.secrets.unset(id, key))) throw notFound('env_key_not_found', `Workspace ${id} has no env var ${key}.`);
    const names = Object.keys(await this.#repos.secrets.get(id)).sort();
    return toWorkspaceView((await this.#repos.workspaces.update(id, { env_keys: names }))!);
  }

  /** The workspace's env values, for a process's environment only. */
  async envValues(id: string): Promise<Record<string, string>> {
    return this.#repos.secrets.get(id);
  }

  /**
   * The env-leak gate, before every agent invocation in a workspace: the root's .env files are
   * scanned afresh, and agent keys there without consent on the record stop the agent.
   */
  async assertAgentAllowed(id: string): Promise<void> {
    const record = await this.#record(id);
    const scan = stripScan(await scanEnvFiles(record.path));
    if (JSON.stringify(scan) !== JSON.stringify(record.env_scan)) await this.#repos.workspaces.update(id, { env_scan: scan });
    if (scan.keys.length === 0 || record.allow_env_keys) return;
    throw new ApiError(
      422,
      'env_leak_blocked',
      `Workspace ${id} has agent keys in ${scan.files.join(', ')} (${scan.keys.join(', ')}); an agent started there would receive them. ` +
        `Remove them, or consent with \`svc workspace consent ${id} --allow\`.`,
      { workspaceId: id, files: scan.files, keys: scan.keys },
    );
  }

  /**
   * Where a run on a workspace executes: a fresh worktree on branch `svc/<runId>` from the default
   * branch, reused when the run resumes. A directory that is no git repository has no worktrees:
   * the run executes in it (docs/decisions.md, Workspaces).
   */
  async placeRun(id: string, runId: string): Promise<RunPlace> {
    const record = await this.#record(id);
    if (!record.default_branch) return { cwd: record.path, environment: null };
    const existing = (await this.#repos.environments.list({ runId, workspaceId: id, limit: 1 })).items[0];
    if (existing) {
      const present = await stat(existing.path).then(
        (s) => s.isDirectory(),
        () => false,
      );
      if (present) return { cwd: existing.path, environment: existing };
      await this.#repos.environments.delete(existing.id);
    }
    const path = join(this.#ownDir(id), 'worktrees', runId);
    const branch = `svc/${runId}`;
    await mkdir(join(this.#ownDir(id), 'worktrees'), { recursive: true });
    const git = { cwd: record.path, env: this.#deps.env, timeoutMs: this.#deps.gitTimeoutMs };
    // A branch left by an earlier attempt (crash between branch and record) is taken over.
    await runGit(['worktree', 'prune'], git).catch(() => undefined);
    const branchExists = await runGit(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], git).then(
      () => true,
      () => false,
    );
    try {
      await runGit(branchExists ? ['worktree', 'add', '--', path, branch] : ['worktree', 'add', '-b', branch, '--', path, record.default_branch], git);
    } catch (error) {
      // The repository changed under us (its default branch is gone, it is locked…): the user's to fix.
      throw new ApiError(409, 'worktree_failed', `Could not make a worktree for run ${runId} in workspace ${id}: ${(error as Error).message}`, {
        workspaceId: id,
      });
    }
    const environment: Environment = { id: newId('env'), workspace_id: id, path, branch, run_id: runId, created_at: this.#now() };
    await this.#repos.environments.insert(environment);
    return { cwd: path, environment };
  }

  /** Removes a run's worktree and branch (the run was deleted, or cleaned up). */
  async removeRunEnvironment(runId: string): Promise<void> {
    const { items } = await this.#repos.environments.list({ runId });
    for (const environment of items) await this.#removeEnvironment(environment);
  }

  async #removeEnvironment(environment: Environment): Promise<void> {
    const record = await this.#repos.workspaces.get(environment.workspace_id);
    const own = this.#ownDir(environment.workspace_id);
    if (record) {
      const git = { cwd: record.path, env: this.#deps.env, timeoutMs: this.#deps.gitTimeoutMs };
      await runGit(['worktree', 'remove', '--force', '--', environment.path], git).catch(() => undefined);
      // update-ref, not `branch -D`: that one leaves a packed-refs file behind in the user's repository.
      await runGit(['update-ref', '-d', `refs/heads/${environment.branch}`], git).catch(() => undefined);
      await runGit(['worktree', 'prune'], git).catch(() => undefined);
    }
    // Only ever below <home>/workspaces/<id>/worktrees: never a directory of the user's.
    if (isInside(environment.path, join(own, 'worktrees'))) await rm(environment.path, { recursive: true, force: true });
    await this.#repos.environments.delete(environment.id);
  }

  /** Removes the worktrees of runs that ended before `before` (`svc workspace cleanup`). */
  async cleanup(before: Date, workspaceId?: string): Promise<{ removed: EnvironmentView[] }> {
    if (workspaceId) await this.#record(workspaceId);
    const { items } = await this.#repos.environments.list({ workspaceId, limit: Number.MAX_SAFE_INTEGER });
    const removed: EnvironmentView[] = [];
    for (const environment of items) {
      const view = await this.#environmentView(environment);
      const endedAt = view.ended_at ?? (view.status === 'ended' ? environment.created_at : null);
      if (view.status !== 'ended' || endedAt === null || Date.parse(endedAt) >= before.getTime()) continue;
      await this.#removeEnvironment(environment);
      removed.push(view);
    }
    return { removed };
  }

  /**
   * Removes the registration, every worktree and `svc/*` branch of its runs, and our clone. A
   * directory the user registered by path is never deleted, nor anything outside
   * `<home>/workspaces/<id>`.
   */
  async delete(id: string): Promise<Workspace> {
    const record = await this.#record(id);
    const { items } = await this.#repos.environments.list({ workspaceId: id, limit: Number.MAX_SAFE_INTEGER });
    for (const environment of items) await this.#removeEnvironment(environment);
    const own = this.#ownDir(id);
    // Our folder goes (clone and worktrees), unless a path the user registered lies in it.
    const usersDirInside = record.source === 'path' && (resolve(record.path) === resolve(own) || isInside(record.path, own));
    await rm(usersDirInside ? join(own, 'worktrees') : own, { recursive: true, force: true });
    await this.#repos.secrets.clear(id);
    await this.#repos.workspaces.delete(id);
    return toWorkspaceView(record);
  }
}

/** Whether `path` lies strictly inside `dir` (after resolving `..`). */
function isInside(path: string, dir: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep) && !rel.includes(`..${sep}`);
}
