/**
 * The workflow catalog: discovery, the project-file CRUD and the trigger registry behind one
 * object, wired once in the AppContext. The server's routes and the CLI's offline mode both call
 * it, so they cannot disagree about which workflows exist.
 */

import type { Logger } from '../shared/logger.js';
import { ApiError, notFound } from '../shared/errors.js';
import type { RawWorkflow } from '../workflows/schema.js';
import type { Store } from '../store/index.js';
import { listCommands, readCommand, type CommandList } from './commands.js';
import { discoverWorkflows, type DiscoveredWorkflow, type Discovery, type DiscoveryError } from './discovery.js';
import { WorkflowFileCache } from './file-cache.js';
import { readWorkspaces, type WorkspaceRef } from './project-roots.js';
import { deleteProjectWorkflow, projectFilesOf, saveProjectWorkflow } from './project-files.js';
import { resolveProjectDir } from './project-dir.js';
import { TriggerRegistry, type TriggerRecord, type TriggerRepository } from './trigger-registry.js';
import { fileStem } from '../workflows/workflow-file.js';

export interface CatalogOptions {
  /** Used when a request names no cwd: the server's working directory. */
  readonly defaultCwd?: string;
  readonly bundledWorkflowsDir?: string;
  readonly bundledCommandsDir?: string;
  readonly workspaces?: () => Promise<readonly WorkspaceRef[]>;
  readonly registry?: TriggerRegistry;
  readonly logger?: Logger;
}

export interface SavedWorkflow {
  readonly name: string;
  readonly filename: string;
  /** The definition as saved (snake_case). */
  readonly raw: RawWorkflow;
  readonly workspaceId: string | null;
  readonly created: boolean;
  /** What discovery reports about the saved file; empty when it is in use as saved. */
  readonly errors: string[];
}

export class WorkflowCatalog {
  readonly cache = new WorkflowFileCache();
  readonly defaultCwd: string;

  constructor(private readonly options: CatalogOptions = {}) {
    this.defaultCwd = options.defaultCwd ?? process.cwd();
  }

  /**
   * The catalog of an app: the trigger registry and the workspaces come from `store`, unless
   * `options.triggers` keeps the registry and `options.workspaces` lists the workspaces (a
   * PostgreSQL store keeps both in the database; `triggerHost` then names this machine). With
   * `discoverOnOpen`, one discovery pass of the default cwd runs now, so the triggers of the
   * workspaces are registered before the first request (a failure there only logs).
   */
  static async open(
    store: Store,
    options: CatalogOptions & { writable: boolean; discoverOnOpen?: boolean; triggers?: TriggerRepository; triggerHost?: string },
  ): Promise<WorkflowCatalog> {
    const registry = options.triggers
      ? new TriggerRegistry(options.triggers, { writable: options.writable, host: options.triggerHost })
      : await TriggerRegistry.open(store, options.writable);
    const catalog = new WorkflowCatalog({ ...options, registry, workspaces: options.workspaces ?? (() => readWorkspaces(store)) });
    if (options.discoverOnOpen) {
      await catalog.discover().catch((error: Error) => options.logger?.warn('workflows.discovery_failed', { error: error.message }));
    }
    return catalog;
  }

  async resolveCwd(cwd: string | undefined): Promise<string> {
    return resolveProjectDir(cwd, this.defaultCwd);
  }

  /** Every workflow visible from `cwd`, and every problem found; refreshes the trigger registry. */
  async discover(cwd?: string): Promise<Discovery> {
    const dir = await this.resolveCwd(cwd);
    const workspaces = (await this.options.workspaces?.()) ?? [];
    const discovery = await discoverWorkflows({ cwd: dir, workspaces, cache: this.cache, bundledDir: this.options.bundledWorkflowsDir });
    let conflicts: DiscoveryError[] = [];
    try {
      conflicts = (await this.options.registry?.refresh(discovery, dir)) ?? [];
    } catch (error) {
      // A registry that cannot be written must not make the workflows themselves unlistable.
      this.options.logger?.warn('workflows.trigger_registry_failed', { error: (error as Error).message });
    }
    return { ...discovery, errors: [...discovery.errors, ...conflicts] };
  }

  async get(name: string, cwd?: string): Promise<DiscoveredWorkflow> {
    const discovery = await this.discover(cwd);
    const found = discovery.workflows.find((w) => w.name === name);
    if (found !== undefined) return found;
    const broken = [...new Set(discovery.errors.filter((e) => fileStem(e.filename) === name).map((e) => e.filename))];
    const hint = broken.length === 0 ? '' : ` ${broken.join(' and ')} ${broken.length === 1 ? 'has' : 'have'} errors; list them with svc workflow list.`;
    throw notFound('workflow_not_found', `No workflow named '${name}'.${hint}`);
  }

  /**
   * Validates and writes a project workflow. Discovery then runs again (refreshing the trigger
   * registry); what it reports about the saved file (a name also used in a registered workspace,
   * a webhook slug taken elsewhere) comes back as `errors` — the file is saved either way.
   */
  async save(name: string, definition: unknown, cwd?: string): Promise<SavedWorkflow> {
    const dir = await this.resolveCwd(cwd);
    const saved = await saveProjectWorkflow(dir, name, definition);
    this.cache.forget(saved.filename);
    const discovery = await this.discover(dir);
    const found = discovery.workflows.find((w) => w.filename === saved.filename);
    const errors = discovery.errors.filter((e) => e.filename === saved.filename).map((e) => e.error);
    return { name, filename: saved.filename, raw: saved.raw, workspaceId: found?.workspaceId ?? null, created: saved.created, errors };
  }

  /** Deletes the project files of `name` under `cwd`; a bundled workflow is read-only. */
  async remove(name: string, cwd?: string): Promise<{ name: string; deleted: string[] }> {
    const dir = await this.resolveCwd(cwd);
    const deleted = await deleteProjectWorkflow(dir, name);
    for (const file of projectFilesOf(dir, name)) this.cache.forget(file);
    const discovery = await this.discover(dir);
    if (deleted.length > 0) return { name, deleted };
    const other = discovery.workflows.find((w) => w.name === name);
    if (other?.source === 'bundled') {
      throw new ApiError(
        403,
        'bundled_workflow_readonly',
        `'${name}' is a bundled workflow and cannot be deleted; save a project workflow of that name to override it.`,
      );
    }
    const elsewhere = other === undefined ? '' : ` It is defined in ${other.filename}; pass that project's directory as cwd.`;
    throw notFound('workflow_not_found', `No project workflow named '${name}' in ${dir}.${elsewhere}`);
  }

  async commands(cwd?: string): Promise<CommandList> {
    return listCommands(await this.resolveCwd(cwd), { bundledDir: this.options.bundledCommandsDir });
  }

  /** The prompt a node's `command: <name>` runs, as seen from the run's directory. */
  readCommand(name: string, cwd: string) {
    return readCommand(name, cwd, { bundledDir: this.options.bundledCommandsDir });
  }

  /** The registered webhook trigger for `slug` (for the webhook endpoint). */
  async findTrigger(slug: string): Promise<TriggerRecord | undefined> {
    return this.options.registry?.find(slug);
  }

  /** The live registered webhook triggers, by slug. */
  async triggers(): Promise<TriggerRecord[]> {
    return (await this.options.registry?.all()) ?? [];
  }
}
