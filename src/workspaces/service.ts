/**
 * Workspaces (docs/contract.md, "Workspaces"): a repository svc cloned, or a directory the user
 * registered, in which runs execute in git worktrees of their own; the workspace's env values; and
 * the env-leak gate with its audit entries. The server and the CLI reach this through the API.
 */

import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Actor } from '../shared/actor.js';
import { DomainError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { Logger } from '../shared/logger.js';
import { registerWorkspace, stripScan } from './registration.js';
import { scanEnvFiles } from './env-scan.js';
import { prepareWorktree, type WorktreePreparation } from './worktree-preparation.js';
import { isDirectory, localRepository } from './local-repository.js';
import { addWorktree, isInside, removeWorktree, type WorktreeGit } from './worktrees.js';
import { headOf } from './commits.js';
import { assertCleanupRule, cleanEnvironments, cleanupRuleOf, cleanupRuleToChange, type CleanupResult, type CleanupRule } from './cleanup.js';
import { environmentDiff, type DiffRange, type RunDiff } from './diff.js';
import { worktreesOnDisk } from './disk-usage.js';
import { toWorkspaceView, type Environment, type EnvironmentView, type Workspace, type WorkspaceDetail, type WorkspaceRecord } from './records.js';
import type { Paging, WorkspaceRepositories } from './repository.js';
import type { HomeCoordination, WorkspaceChange } from '../coordination/index.js';

/** Names a workspace env var may have (what a shell accepts, upper case by convention). */
/** A run's branch as landing finds it: its worktree's record, its workspace, git, and the workspace's lock. */
export interface LandingSite {
  readonly environment: Environment;
  readonly workspace: Pick<WorkspaceRecord, 'id' | 'default_branch'>;
  readonly git: WorktreeGit & { /** `SVC_GH_BIN`. */ ghBin: string };
  /**
   * Runs work with the workspace's lock held: two merges into one checkout at once would both
   * update its index and working tree, and the loser of the ref's compare-and-set would leave its
   * files staged there.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
}

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
  /**
   * Which home a worktree or clone is in (coordination/types.ts): this process's alone, or, with
   * several servers on one database (docs/scaling.md), each removes only the worktrees and clones
   * of its own home, and tells the others to remove theirs.
   */
  homes: HomeCoordination;
  /**
   * Told of each workspace once it is registered: the catalog registers the webhook triggers of
   * its workflows then, not at the next periodic pass. A failure there is logged, not the caller's.
   */
  registered?(workspace: Workspace): Promise<unknown>;
  /** `SVC_GH_BIN`: the GitHub CLI that opens pull requests (default `gh`). */
  ghBin?: string;
}

/** How a run is placed: `existingOnly` for a resumed run; `here` when this server executes it (a shared database). */
export interface PlaceOptions {
  existingOnly?: boolean;
  /**
   * Placed by the server that executes the run (docs/contract.md, "Workspaces"): a clone is this
   * server's own (made now when it has none) and a directory registered by path must exist here
   * (local-repository.ts). A worktree the run already has is reused where it is present.
   */
  here?: boolean;
  /** A follow-on run (docs/decisions.md, "Follow-on runs"): the commit a new worktree's branch starts at, not the default branch. */
  from?: string | undefined;
}

export interface RunPlace {
  /** The run's working directory: its worktree, or the directory itself when it is no git repository. */
  cwd: string;
  environment: Environment | null;
  /** A worktree made now: the commit it starts from (a reused one's is on the run's record). */
  baseCommit?: string;
}

export class WorkspaceService {
  readonly #deps: WorkspaceServiceDeps;
  /**
   * One operation at a time per workspace: placing a run, changing env values or consent,
   * cleaning up and deleting all read the record, touch git or the store, and write — run side by
   * side, a delete could miss a worktree a run was just given (left behind in the user's
   * repository) or a write could bring back what a delete removed. In one process; a shared
   * database will need its own row lock.
   */
  readonly #locks = new Map<string, Promise<unknown>>();
  constructor(deps: WorkspaceServiceDeps) {
    this.#deps = deps;
  }

  async #exclusive<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(id) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.catch(() => undefined);
    this.#locks.set(id, tail);
    void tail.then(() => {
      if (this.#locks.get(id) === tail) this.#locks.delete(id);
    });
    return result;
  }

  /** `update` that answers 404 when the workspace is gone meanwhile. */
  async #update(id: string, patch: Partial<Omit<WorkspaceRecord, 'id'>>): Promise<WorkspaceRecord> {
    const updated = await this.#repos.workspaces.update(id, patch);
    if (!updated) throw new DomainError('workspace_not_found', `No workspace '${id}'.`);
    return updated;
  }

  get #git() {
    return { env: this.#deps.env, timeoutMs: this.#deps.gitTimeoutMs };
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

  /** An environment this server's home holds. */
  #isOwn(environment: Environment): boolean {
    return this.#deps.homes.isHere(environment.home_id);
  }

  #announce(change: WorkspaceChange): void {
    this.#deps.homes.announce(change).catch((error: unknown) => this.#deps.logger.warn('workspace.announce_failed', { error: (error as Error).message }));
  }

  async register(input: { url?: string | undefined; path?: string | undefined }): Promise<Workspace> {
    const workspace = await registerWorkspace(input, { ...this.#deps, now: () => this.#now() });
    await this.#deps
      .registered?.(workspace)
      .catch((error: unknown) => this.#deps.logger.warn('workspace.registered_hook_failed', { workspaceId: workspace.id, error: (error as Error).message }));
    return workspace;
  }

  async #record(id: string): Promise<WorkspaceRecord> {
    const record = await this.#repos.workspaces.get(id);
    if (!record) throw new DomainError('workspace_not_found', `No workspace '${id}'.`);
    return record;
  }

  async get(id: string): Promise<Workspace> {
    return toWorkspaceView(await this.#record(id));
  }

  /** The workspace and what its run worktrees take in this server's home (walked now: disk-usage.ts). */
  async detail(id: string): Promise<WorkspaceDetail> {
    const record = await this.#record(id);
    const { items } = await this.#repos.environments.list({ workspaceId: id, limit: Number.MAX_SAFE_INTEGER });
    const disk = await worktreesOnDisk(items.filter((e) => this.#isOwn(e)).map((e) => e.path));
    return { ...toWorkspaceView(record), disk };
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

  /** The consent bit, with its warn-level audit entry (docs/contract.md, "Log entries"). */
  setConsent(id: string, allow: boolean, actor: ConsentActor): Promise<Workspace> {
    return this.#exclusive(id, () => this.#setConsent(id, allow, actor));
  }

  async #setConsent(id: string, allow: boolean, actor: ConsentActor): Promise<Workspace> {
    const record = await this.#record(id);
    const scan = stripScan(await scanEnvFiles(record.path));
    const updated = await this.#update(id, { allow_env_keys: allow, env_scan: scan });
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

  setEnv(id: string, values: Record<string, string>): Promise<Workspace> {
    return this.#exclusive(id, () => this.#setEnv(id, values));
  }

  async #setEnv(id: string, values: Record<string, string>): Promise<Workspace> {
    await this.#record(id);
    const bad = Object.keys(values).filter((key) => !ENV_KEY_PATTERN.test(key));
    if (bad.length) {
      throw new DomainError(
        'invalid_request',
        `Env var names must match ${ENV_KEY_PATTERN.source}: ${bad.join(', ')}.`,
        bad.map((key) => ({ path: key, message: 'not a valid env var name' })),
      );
    }
    const names = await this.#repos.secrets.merge(id, values);
    return toWorkspaceView(await this.#update(id, { env_keys: names }));
  }

  unsetEnv(id: string, key: string): Promise<Workspace> {
    return this.#exclusive(id, () => this.#unsetEnv(id, key));
  }

  async #unsetEnv(id: string, key: string): Promise<Workspace> {
    await this.#record(id);
    if (!(await this.#repos.secrets.unset(id, key))) throw new DomainError('env_key_not_found', `Workspace ${id} has no env var ${key}.`);
    const names = Object.keys(await this.#repos.secrets.get(id)).sort();
    return toWorkspaceView(await this.#update(id, { env_keys: names }));
  }

  /** The workspace's env values, for a process's environment only. */
  async envValues(id: string): Promise<Record<string, string>> {
    return this.#repos.secrets.get(id);
  }

  /**
   * The env-leak gate, before every agent invocation in a workspace: the .env files at the
   * workspace's root — and at the agent's directory, a worktree of it — are scanned afresh, and
   * agent keys there without consent on the record stop the agent.
   */
  async assertAgentAllowed(id: string, cwd?: string): Promise<void> {
    const record = await this.#record(id);
    // A clone is scanned where this server keeps it (the same place when one server registered and runs it).
    const scan = stripScan(await scanEnvFiles(record.source === 'clone' ? join(this.#ownDir(id), 'source') : record.path));
    if (JSON.stringify(scan) !== JSON.stringify(record.env_scan)) await this.#repos.workspaces.update(id, { env_scan: scan });
    if (record.allow_env_keys) return;
    const here = cwd && cwd !== record.path ? await scanEnvFiles(cwd) : undefined;
    const files = [...new Set([...(scan.keys.length ? scan.files : []), ...(here?.keys.length ? here.files : [])])];
    const keys = [...new Set([...scan.keys, ...(here?.keys ?? [])])].sort();
    if (keys.length === 0) return;
    throw new DomainError(
      'env_leak_blocked',
      `Workspace ${id} has agent keys in ${files.join(', ')} (${keys.join(', ')}); an agent started there would receive them. ` +
        `Remove them, or consent with \`svc workspace consent ${id} --allow\`.`,
      { workspaceId: id, files, keys },
    );
  }

  /** A new worktree's `.svc/worktree.yaml`: copies made, the setup script to run (worktree-preparation.ts). */
  async prepareWorktree(id: string, worktree: string): Promise<WorktreePreparation | null> {
    const record = await this.#record(id);
    const checkout = record.source === 'clone' ? join(this.#ownDir(id), 'source') : record.path;
    return prepareWorktree({ id, checkout, allowEnvKeys: record.allow_env_keys }, worktree);
  }

  /**
   * Where a run on a workspace executes: a fresh worktree on branch `svc/<runId>` from the default
   * branch (or `from`, a follow-on run's earlier head), reused when the run resumes. A directory that is no git repository
   * has no worktrees: the run executes in it (docs/contract.md, "Workspaces").
   */
  placeRun(id: string, runId: string, options: PlaceOptions = {}): Promise<RunPlace> {
    return this.#exclusive(id, () => this.#placeRun(id, runId, options));
  }

  /** Where a run on the workspace would be recorded before a server executes it: the workspace's own path (404 when it is gone). */
  async pathOf(id: string): Promise<string> {
    return (await this.#record(id)).path;
  }

  async #placeRun(id: string, runId: string, { existingOnly = false, here = false, from }: PlaceOptions): Promise<RunPlace> {
    const record = await this.#record(id);
    const repository = here ? await localRepository(record, this.#deps) : record.path;
    if (!record.default_branch) return { cwd: repository, environment: null };
    const existing = (await this.#repos.environments.list({ runId, workspaceId: id, limit: 1 })).items[0];
    if (existing && !this.#isOwn(existing)) {
      // Another home's worktree (docs/scaling.md): only its servers look at it, and the run goes on there.
      if (!here) return { cwd: existing.path, environment: existing };
    } else if (existing) {
      const present = await isDirectory(existing.path);
      if (present) return { cwd: existing.path, environment: existing };
      await this.#repos.environments.delete(existing.id);
    }
    if (existingOnly) {
      throw new DomainError(
        'worktree_gone',
        `Run ${runId}'s worktree in workspace ${id} was cleaned up, and with it what its completed nodes changed; start the workflow anew.`,
        { workspaceId: id, runId },
      );
    }
    const path = join(this.#ownDir(id), 'worktrees', runId);
    const branch = `svc/${runId}`;
    const what = `run ${runId} in workspace ${id}`;
    await addWorktree({ repository, path, branch, from: from ?? record.default_branch, what, workspaceId: id }, this.#git);
    const baseCommit = await headOf(path, this.#git);
    const environment: Environment = {
      id: newId('env'),
      workspace_id: id,
      repository,
      path,
      branch,
      run_id: runId,
      created_at: this.#now(),
      ...(this.#deps.homes.homeId !== undefined ? { home_id: this.#deps.homes.homeId } : {}),
    };
    await this.#repos.environments.insert(environment);
    return { cwd: path, environment, baseCommit };
  }

  /**
   * The diff of a run's commits from `base` to `head`, read from git's objects in the repository
   * holding its branch (docs/decisions.md, "A commit per node, and the diff"). 409 `worktree_gone` once clean-up
   * removed the branch; with a shared database, 409 `worktree_elsewhere` on a server of another
   * home: the branch is in that home's repository, and only its servers read it (docs/scaling.md).
   */
  async runDiff(runId: string, range: DiffRange): Promise<RunDiff> {
    return environmentDiff(await this.#runEnvironment(runId), range, this.#git);
  }

  /** Where a run's branch is landed from (landing/run-landing.ts); 409 as `runDiff` when the branch is not here. */
  async landingSite(runId: string): Promise<LandingSite> {
    const environment = await this.#runEnvironment(runId);
    const workspace = await this.#record(environment.workspace_id);
    return { environment, workspace, git: { ...this.#git, ghBin: this.#deps.ghBin ?? 'gh' }, exclusive: (work) => this.#exclusive(workspace.id, work) };
  }

  /** The environment holding a run's branch in this server's home. */
  async #runEnvironment(runId: string): Promise<Environment> {
    const { items } = await this.#repos.environments.list({ runId });
    const environment = items.find((e) => this.#isOwn(e)) ?? items[0];
    if (!environment) {
      throw new DomainError('worktree_gone', `Run ${runId}'s worktree and its branch svc/${runId} were cleaned up; its changes are no longer kept.`);
    }
    if (!this.#isOwn(environment)) {
      const message = `Run ${runId}'s branch is in the repository of another server's home (${environment.home_id}); ask a server of that home.`;
      throw new DomainError('worktree_elsewhere', message, { homeId: environment.home_id });
    }
    return environment;
  }

  /** Removes a run's worktree and branch (the run was deleted); another home's are removed by its servers, when told. */
  async removeRunEnvironment(runId: string, { announce = true } = {}): Promise<void> {
    const { items } = await this.#repos.environments.list({ runId });
    for (const environment of items.filter((e) => this.#isOwn(e))) {
      await this.#exclusive(environment.workspace_id, () => this.#removeEnvironment(environment));
    }
    if (announce && items.some((e) => !this.#isOwn(e))) this.#announce({ kind: 'run_deleted', runId });
  }

  /** Call with the workspace's lock held. */
  async #removeEnvironment(environment: Environment): Promise<void> {
    await removeWorktree(environment, join(this.#ownDir(environment.workspace_id), 'worktrees'), this.#git);
    await this.#repos.environments.delete(environment.id);
  }

  /**
   * `svc workspace cleanup` (cleanup.ts decides): removes the worktrees and `svc/*` branches of
   * finished runs by age, by outcome (`merged`) or both, and says which it kept and why. A failed
   * run resumed later gets a new worktree and runs all its nodes again (their files are gone).
   */
  async cleanup(rule: CleanupRule, workspaceId?: string, { announce = true } = {}): Promise<CleanupResult> {
    assertCleanupRule(rule);
    if (workspaceId) await this.#record(workspaceId);
    const { items } = await this.#repos.environments.list({ workspaceId, limit: Number.MAX_SAFE_INTEGER });
    const { result, elsewhere } = await cleanEnvironments(items, rule, {
      view: (environment) => this.#environmentView(environment),
      isOwn: (environment) => this.#isOwn(environment),
      locked: (environment, work) => this.#exclusive(environment.workspace_id, work),
      defaultBranch: async (id) => (await this.#repos.workspaces.get(id))?.default_branch ?? '',
      remove: (environment) => this.#removeEnvironment(environment),
      git: this.#git,
      announce,
    });
    if (elsewhere) this.#announce({ kind: 'cleanup', ...cleanupRuleToChange(rule), ...(workspaceId ? { workspaceId } : {}) });
    return result;
  }

  /**
   * Removes the registration, every worktree and `svc/*` branch of its runs, and our clone. A
   * directory the user registered by path is never deleted, nor anything outside
   * `<home>/workspaces/<id>`. Refused (409 `workspace_in_use`) while a run on it can still change:
   * its worktree would vanish under it.
   */
  delete(id: string): Promise<Workspace> {
    return this.#exclusive(id, () => this.#delete(id));
  }

  async #delete(id: string): Promise<Workspace> {
    const record = await this.#record(id);
    const { items } = await this.#repos.environments.list({ workspaceId: id, limit: Number.MAX_SAFE_INTEGER });
    const views = await Promise.all(items.map((environment) => this.#environmentView(environment)));
    const busy = views.filter((view) => view.status === 'active').map((view) => view.run_id);
    if (busy.length) {
      throw new DomainError('workspace_in_use', `Workspace ${id} has runs that are not finished (${busy.join(', ')}); cancel or abandon them first.`, {
        runs: busy,
      });
    }
    await this.#removeOwnFiles(id, record, items);
    await this.#repos.secrets.clear(id);
    await this.#repos.workspaces.delete(id);
    // Other homes' worktrees and clones of it go when their servers are told; their environments' records stay until then.
    this.#announce({ kind: 'workspace_deleted', workspaceId: id, source: record.source, path: record.path });
    return toWorkspaceView(record);
  }

  /** This home's worktrees of the workspace, and its folder (clone and worktrees) unless a path the user registered lies in it. */
  async #removeOwnFiles(id: string, record: Pick<WorkspaceRecord, 'source' | 'path'>, environments: Environment[]): Promise<void> {
    for (const environment of environments.filter((e) => this.#isOwn(e))) await this.#removeEnvironment(environment);
    const own = this.#ownDir(id);
    const usersDirInside = record.source === 'path' && (resolve(record.path) === resolve(own) || isInside(record.path, own));
    await rm(usersDirInside ? join(own, 'worktrees') : own, { recursive: true, force: true });
  }

  /** What another server announced (coordination/postgres-homes.ts): this server removes what its own home holds of it. */
  async applyChange(change: WorkspaceChange): Promise<void> {
    if (change.kind === 'run_deleted') return this.removeRunEnvironment(change.runId, { announce: false });
    if (change.kind === 'cleanup') return void (await this.cleanup(cleanupRuleOf(change), change.workspaceId, { announce: false }));
    // The id names a folder this server removes: only ever one of `<home>/workspaces`.
    if (!/^[A-Za-z0-9_-]+$/.test(change.workspaceId)) throw new Error(`not a workspace id: '${change.workspaceId}'`);
    await this.#exclusive(change.workspaceId, async () => {
      const { items } = await this.#repos.environments.list({ workspaceId: change.workspaceId, limit: Number.MAX_SAFE_INTEGER });
      await this.#removeOwnFiles(change.workspaceId, change, items);
    });
  }
}
