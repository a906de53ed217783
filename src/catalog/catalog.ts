/**
 * The workflow catalog: discovery and the project-file CRUD behind one object, wired once in the
 * AppContext, with the webhook trigger registry (webhooks/trigger-registry.ts) checked and kept
 * through a port: the registry is webhook state, a folder above this one. The server's routes and the CLI's offline mode both call
 * it, so they cannot disagree about which workflows exist.
 */

import type { Logger } from '../shared/logger.js';
import { DomainError } from '../shared/errors.js';
import { type RawWorkflow, type WebhookTrigger, fileStem, placeIn } from '../workflows/index.js';
import type { Store } from '../store/index.js';
import { listCommands, readCommand, type CommandList } from './commands.js';
import { discoverWorkflows, type DiscoveredWorkflow, type Discovery, type DiscoveryError } from './discovery.js';
import { WorkflowFileCache } from './file-cache.js';
import { projectRoots, readWorkspaces, type WorkspaceRef } from './project-roots.js';
import { TriggerWatch } from './trigger-watch.js';
import { deleteProjectWorkflow, projectFilesOf, saveProjectWorkflow } from './project-files.js';
import { resolveProjectDir } from './project-dir.js';

/** What the catalog reads of a registered trigger. */
export interface RegisteredTrigger {
  readonly filename: string;
}

/**
 * What a discovery pass asks of the webhook trigger registry: check the triggers found (a read) or
 * register them (a state-changing call), each answering the conflicts as problems; and read it.
 */
export interface TriggerRegistryPort<T extends RegisteredTrigger> {
  check(discovery: Discovery, dir: string): Promise<DiscoveryError[]>;
  refresh(discovery: Discovery, dir: string): Promise<DiscoveryError[]>;
  find(slug: string): Promise<T | undefined>;
  all(): Promise<T[]>;
}

/** Why a webhook trigger's secret is too weak, and what to do about it (the webhook service's judgement). */
export interface SecretWeakness {
  readonly weakness: string;
  readonly advice: string;
}

export interface CatalogOptions<T extends RegisteredTrigger = RegisteredTrigger> {
  /** Used when a request names no cwd: the server's working directory. */
  readonly defaultCwd?: string;
  readonly bundledWorkflowsDir?: string;
  readonly bundledCommandsDir?: string;
  readonly workspaces?: () => Promise<readonly WorkspaceRef[]>;
  readonly registry?: TriggerRegistryPort<T>;
  readonly logger?: Logger;
  /**
   * Why the secret a webhook trigger of a workflow found in `workspaceId` (or not in one) would be
   * signed with is too weak to be one, if it is: the webhook service's judgement of the value the
   * endpoint would use. Each pass reports it in `errors`; absent, secrets are not looked at.
   */
  readonly secretWeakness?: (trigger: WebhookTrigger, workspaceId: string | null) => Promise<SecretWeakness | undefined>;
}

/** What an explicit registration answers: the triggers now registered for the workflows it found, and every problem. */
export interface TriggerRegistration<T extends RegisteredTrigger = RegisteredTrigger> {
  readonly triggers: T[];
  readonly errors: DiscoveryError[];
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

export class WorkflowCatalog<T extends RegisteredTrigger = RegisteredTrigger> {
  readonly cache = new WorkflowFileCache();
  readonly defaultCwd: string;
  #watch: TriggerWatch | undefined;

  constructor(private readonly options: CatalogOptions<T> = {}) {
    this.defaultCwd = options.defaultCwd ?? process.cwd();
  }

  /** The catalog of an app: the workspaces come from `store` unless `options.workspaces` lists them (a PostgreSQL store keeps them in the database). */
  static open<T extends RegisteredTrigger>(store: Store, options: CatalogOptions<T>): WorkflowCatalog<T> {
    return new WorkflowCatalog<T>({ ...options, workspaces: options.workspaces ?? (() => readWorkspaces(store)) });
  }

  async resolveCwd(cwd: string | undefined): Promise<string> {
    return resolveProjectDir(cwd, this.defaultCwd);
  }

  /**
   * Every workflow visible from `cwd`, and every problem found (slug conflicts and weak secrets
   * included). Reads only: the trigger registry is checked, never written, so a listing — a GET,
   * which any web page can make the user's browser send — registers nothing (docs/decisions.md, "Webhooks").
   */
  async discover(cwd?: string, options: { triggersOnly?: boolean; workspaceId?: string | null } = {}): Promise<Discovery> {
    return this.#pass(cwd, false, options.triggersOnly, options.workspaceId ?? null);
  }

  /**
   * A discovery pass that registers the webhook triggers it finds under `cwd` (default: the
   * server's directory) and the registered workspaces. Called for the server's directory and
   * workspaces at start and when their workflow files change (`watchTriggers`), and for a directory
   * named by a state-changing call: save, delete, `POST /api/webhooks/register`.
   */
  async registerTriggers(cwd?: string): Promise<TriggerRegistration<T>> {
    const discovery = await this.#pass(cwd, true, true);
    const files = new Set(discovery.workflows.map((w) => w.filename));
    return { triggers: (await this.triggers()).filter((t) => files.has(t.filename)), errors: discovery.errors };
  }

  /**
   * Keeps the triggers of the server's directory and workspaces registered (trigger-watch.ts): a
   * pass soon after a file in one of their `.svc/workflows/` changes, and a slow pass every
   * `fallbackMs` for what a watch misses (a file system without events, a workspace another server
   * registered). Returns the stop.
   */
  async watchTriggers({ debounceMs = 100, fallbackMs = 15_000 } = {}): Promise<() => void> {
    const watch = new TriggerWatch({
      roots: async () => {
        const { here, elsewhere } = await projectRoots(this.defaultCwd, (await this.options.workspaces?.()) ?? []);
        return [...here, ...elsewhere].map((root) => root.dir);
      },
      register: () => this.registerTriggers(),
      changed: (path) => this.cache.forget(path),
      debounceMs,
      fallbackMs,
      logger: this.options.logger,
    });
    await watch.start();
    this.#watch = watch;
    return () => {
      watch.stop();
      if (this.#watch === watch) this.#watch = undefined;
    };
  }

  /** A workspace was registered: its triggers are registered, and its workflow directory watched, at once. */
  async workspaceRegistered(): Promise<void> {
    await this.registerTriggers();
    this.#watch?.poke();
  }

  /**
   * `triggersOnly`: a pass for the triggers alone, which leaves out the bundled workflows (none
   * declares one). `workspaceId`: the workspace the request speaks for (404 when none has that id).
   */
  async #pass(cwd: string | undefined, register: boolean, triggersOnly = false, workspaceId: string | null = null): Promise<Discovery> {
    const dir = await this.resolveCwd(cwd);
    const workspaces = (await this.options.workspaces?.()) ?? [];
    if (workspaceId !== null && !workspaces.some((w) => w.id === workspaceId)) {
      throw new DomainError('workspace_not_found', `No workspace '${workspaceId}'; list them with svc workspace list.`);
    }
    const discovery = await discoverWorkflows({
      cwd: dir,
      workspaces,
      workspaceId,
      cache: this.cache,
      bundledDir: this.options.bundledWorkflowsDir,
      bundled: !triggersOnly,
    });
    let conflicts: DiscoveryError[] = [];
    try {
      const { registry } = this.options;
      conflicts = (await (register ? registry?.refresh(discovery, dir) : registry?.check(discovery, dir))) ?? [];
    } catch (error) {
      // A registry that cannot be written must not make the workflows themselves unlistable.
      this.options.logger?.warn('workflows.trigger_registry_failed', { error: (error as Error).message });
    }
    return { ...discovery, errors: [...discovery.errors, ...conflicts, ...(await this.#weakSecrets(discovery))] };
  }

  /** A problem for each webhook trigger whose secret is too weak (checked where its value is known: here, and at each delivery). */
  async #weakSecrets(discovery: Discovery): Promise<DiscoveryError[]> {
    const judge = this.options.secretWeakness;
    if (!judge) return [];
    const problems = discovery.workflows.flatMap((w) =>
      w.workflow.triggers.webhook.map(async (trigger, index): Promise<DiscoveryError | undefined> => {
        const judged = await judge(trigger, w.workspaceId);
        if (judged === undefined) return undefined;
        const { weakness, advice } = judged;
        const place = placeIn(w.text, w.filename, ['triggers', 'webhook', index, 'secret_env']);
        return {
          filename: w.filename,
          error: `${place}triggers.webhook[${index}].secret_env: ${trigger.secretEnv} holds no secret: ${weakness}; deliveries to '${trigger.slug}' are refused (503 webhook_secret_weak) until it does: ${advice}`,
        };
      }),
    );
    return (await Promise.all(problems)).filter((problem): problem is DiscoveryError => problem !== undefined);
  }

  /**
   * The workflow `name` means from `cwd` (and `workspaceId`, the workspace the request speaks for):
   * that workspace's, then the cwd's, then the bundled one; failing those, the one other workspace
   * that has it. Several other workspaces with it is 404 naming them: which one is the caller's to say.
   */
  async get(name: string, cwd?: string, workspaceId?: string | null): Promise<DiscoveredWorkflow> {
    return (await this.lookup(name, cwd, workspaceId)).found;
  }

  /** `get`, with the workspace the request speaks for (`workspaceHere`): the one asked for, else the one whose checkout holds `cwd`. */
  async lookup(name: string, cwd?: string, workspaceId?: string | null): Promise<{ found: DiscoveredWorkflow; workspaceHere: string | null }> {
    const discovery = await this.discover(cwd, { workspaceId: workspaceId ?? null });
    const named = discovery.workflows.filter((w) => w.name === name);
    // Another workspace's stands in only for a name nothing here defines: never for a broken file here.
    const found = named.find((w) => w.here) ?? (named.length === 1 && !discovery.claimed.has(name) ? named[0] : undefined);
    if (found !== undefined) return { found, workspaceHere: discovery.workspaceId };
    if (named.length > 1 && !discovery.claimed.has(name)) {
      const where = named.map((w) => `${w.workspaceName ?? w.workspaceId} (${w.workspaceId}, ${w.filename})`).join(', ');
      throw new DomainError('workflow_not_found', `No workflow named '${name}' here; workspaces ${where} each have one: choose one with --workspace <name>.`);
    }
    const broken = [...new Set(discovery.errors.filter((e) => fileStem(e.filename) === name).map((e) => e.filename))];
    const hint = broken.length === 0 ? '' : ` ${broken.join(' and ')} ${broken.length === 1 ? 'has' : 'have'} errors; list them with svc workflow list.`;
    throw new DomainError('workflow_not_found', `No workflow named '${name}'.${hint}`);
  }

  /**
   * Validates and writes a project workflow. Discovery then runs again, registering the webhook
   * triggers of `cwd` (a PUT: an explicit, state-changing call); what it reports about the saved
   * file (a clash with another file of its folder, a webhook slug taken elsewhere, a weak
   * secret) comes back as `errors` — the file is saved either way.
   */
  async save(name: string, definition: unknown, cwd?: string): Promise<SavedWorkflow> {
    const dir = await this.resolveCwd(cwd);
    const saved = await saveProjectWorkflow(dir, name, definition);
    this.cache.forget(saved.filename);
    const discovery = await this.#pass(dir, true);
    const found = discovery.workflows.find((w) => w.filename === saved.filename);
    const errors = discovery.errors.filter((e) => e.filename === saved.filename).map((e) => e.error);
    return { name, filename: saved.filename, raw: saved.raw, workspaceId: found?.workspaceId ?? null, created: saved.created, errors };
  }

  /** Deletes the project files of `name` under `cwd`; a bundled workflow is read-only. */
  async remove(name: string, cwd?: string): Promise<{ name: string; deleted: string[] }> {
    const dir = await this.resolveCwd(cwd);
    const deleted = await deleteProjectWorkflow(dir, name);
    for (const file of projectFilesOf(dir, name)) this.cache.forget(file);
    const discovery = await this.#pass(dir, true);
    if (deleted.length > 0) return { name, deleted };
    const other = discovery.workflows.find((w) => w.name === name);
    if (other?.source === 'bundled') {
      throw new DomainError(
        'bundled_workflow_readonly',
        `'${name}' is a bundled workflow and cannot be deleted; save a project workflow of that name to override it.`,
      );
    }
    const elsewhere = other === undefined ? '' : ` It is defined in ${other.filename}; pass that project's directory as cwd.`;
    throw new DomainError('workflow_not_found', `No project workflow named '${name}' in ${dir}.${elsewhere}`);
  }

  async commands(cwd?: string): Promise<CommandList> {
    return listCommands(await this.resolveCwd(cwd), { bundledDir: this.options.bundledCommandsDir });
  }

  /** The prompt a node's `command: <name>` runs, as seen from the run's directory. */
  readCommand(name: string, cwd: string) {
    return readCommand(name, cwd, { bundledDir: this.options.bundledCommandsDir });
  }

  /** The registered webhook trigger for `slug` (for the webhook endpoint). */
  async findTrigger(slug: string): Promise<T | undefined> {
    return this.options.registry?.find(slug);
  }

  /** The live registered webhook triggers, by slug. */
  async triggers(): Promise<T[]> {
    return (await this.options.registry?.all()) ?? [];
  }
}
