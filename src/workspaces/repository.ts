/**
 * Where workspaces, their environments and their env values are kept: async, query-shaped
 * repositories (insert, get, list with filters and paging, update, delete, insert-if-absent for
 * dedupe), so nothing outside this file scans a collection and a database implementation can
 * take the file store's place (docs/decisions.md, "PostgreSQL store").
 */

import type { Collection, Store } from '../store/index.js';
import { pickOne, shortIdPrefix } from '../shared/short-ids.js';
import { WORKSPACE_IDS, type Environment, type WorkspaceRecord } from './records.js';

export interface Page<T> {
  items: T[];
  total: number;
}

export interface Paging {
  limit?: number;
  offset?: number;
}

export type InsertResult<T> = { inserted: true; record: T } | { inserted: false; existing: T };

export interface WorkspaceRepository {
  /** Inserts unless a workspace with the same `source_key` exists (the same url or directory). */
  insertIfAbsent(record: WorkspaceRecord): Promise<InsertResult<WorkspaceRecord>>;
  get(id: string): Promise<WorkspaceRecord | undefined>;
  findBySourceKey(key: string): Promise<WorkspaceRecord | undefined>;
  /**
   * The workspace `ref` names: its id, its name, or a unique prefix of its id with at least
   * WORKSPACE_IDS.minChars characters after `ws_` (shared/short-ids.ts, as run ids); several matches
   * are 400 `ambiguous_workspace` listing them, none 404 `workspace_not_found`.
   */
  resolve(ref: string): Promise<WorkspaceRecord>;
  /** Oldest first. */
  list(paging?: Paging): Promise<Page<WorkspaceRecord>>;
  update(id: string, patch: Partial<Omit<WorkspaceRecord, 'id'>>): Promise<WorkspaceRecord | undefined>;
  delete(id: string): Promise<boolean>;
}

export interface EnvironmentFilter extends Paging {
  workspaceId?: string;
  runId?: string;
}

export interface EnvironmentRepository {
  insert(environment: Environment): Promise<void>;
  get(id: string): Promise<Environment | undefined>;
  /** Newest first. */
  list(filter?: EnvironmentFilter): Promise<Page<Environment>>;
  update(id: string, patch: Partial<Omit<Environment, 'id'>>): Promise<Environment | undefined>;
  delete(id: string): Promise<boolean>;
}

/** Env values of a workspace. They leave this repository only towards a process's environment. */
export interface WorkspaceSecretRepository {
  get(workspaceId: string): Promise<Record<string, string>>;
  /** Merges `values` in; resolves to the names now set. */
  merge(workspaceId: string, values: Record<string, string>): Promise<string[]>;
  /** Resolves to whether the key was set. */
  unset(workspaceId: string, key: string): Promise<boolean>;
  clear(workspaceId: string): Promise<void>;
}

/** The collection the catalog also reads (`src/catalog/project-roots.ts`): one small file. */
export const WORKSPACES_COLLECTION = 'workspaces';
const ENVIRONMENTS_COLLECTION = 'workspace-environments';
const SECRETS_COLLECTION = 'workspace-env';

const page = <T>(items: T[], { limit = 50, offset = 0 }: Paging = {}): Page<T> => ({ items: items.slice(offset, offset + limit), total: items.length });

/** Merges `patch` into the record `id` (the id itself never changes); undefined when there is none. */
async function updateIn<T extends { id: string }>(collection: Collection<T>, id: string, patch: Partial<Omit<T, 'id'>>): Promise<T | undefined> {
  const current = collection.get(id);
  if (!current) return undefined;
  const next = { ...current, ...patch, id };
  await collection.put(next);
  return next;
}

/** Oldest first, ties by id: the order of every list of workspaces (and of the candidates of an ambiguous name). */
const byAge = (records: WorkspaceRecord[]) => records.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));

function workspacesOn(collection: Collection<WorkspaceRecord>): WorkspaceRepository {
  return {
    async insertIfAbsent(record) {
      // Checked and set in one synchronous step: two requests for the same repository cannot both insert.
      const existing = collection.find((w) => w.source_key === record.source_key);
      if (existing) return { inserted: false, existing };
      const written = collection.put(record);
      await written;
      return { inserted: true, record };
    },
    get: async (id) => collection.get(id),
    findBySourceKey: async (key) => collection.find((w) => w.source_key === key),
    resolve: async (ref) => {
      const prefix = shortIdPrefix(WORKSPACE_IDS, ref);
      const candidates = collection.filter((w) => w.name === ref || (prefix !== undefined && w.id.startsWith(prefix)));
      return pickOne(WORKSPACE_IDS, ref, collection.get(ref), byAge(candidates));
    },
    list: async (paging) => page(byAge([...collection.all()]), paging),
    update: (id, patch) => updateIn(collection, id, patch),
    delete: (id) => collection.delete(id),
  };
}

function environmentsOn(collection: Collection<Environment>): EnvironmentRepository {
  return {
    insert: (environment) => collection.put(environment),
    get: async (id) => collection.get(id),
    async list(filter = {}) {
      const matches = collection
        .filter((e) => (!filter.workspaceId || e.workspace_id === filter.workspaceId) && (!filter.runId || e.run_id === filter.runId))
        .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
      return page(matches, { limit: filter.limit ?? 200, offset: filter.offset });
    },
    update: (id, patch) => updateIn(collection, id, patch),
    delete: (id) => collection.delete(id),
  };
}

function secretsOn(collection: Collection<{ id: string; values: Record<string, string> }>): WorkspaceSecretRepository {
  return {
    get: async (workspaceId) => ({ ...(collection.get(workspaceId)?.values ?? {}) }),
    async merge(workspaceId, values) {
      const merged = { ...(collection.get(workspaceId)?.values ?? {}), ...values };
      await collection.put({ id: workspaceId, values: merged });
      return Object.keys(merged).sort();
    },
    async unset(workspaceId, key) {
      const current = collection.get(workspaceId)?.values ?? {};
      if (!Object.hasOwn(current, key)) return false;
      const { [key]: _removed, ...rest } = current;
      await collection.put({ id: workspaceId, values: rest });
      return true;
    },
    async clear(workspaceId) {
      await collection.delete(workspaceId);
    },
  };
}

export interface WorkspaceRepositories {
  workspaces: WorkspaceRepository;
  environments: EnvironmentRepository;
  secrets: WorkspaceSecretRepository;
}

/** The embedded (JSON-file) implementation. */
export async function openWorkspaceRepositories(store: Store): Promise<WorkspaceRepositories> {
  return {
    // 'single': workspaces are few, and the catalog opens this collection with the same layout.
    workspaces: workspacesOn(await store.collection<WorkspaceRecord>(WORKSPACES_COLLECTION, 'single')),
    // One file per environment: they grow with runs.
    environments: environmentsOn(await store.collection<Environment>(ENVIRONMENTS_COLLECTION, 'per-record')),
    secrets: secretsOn(await store.collection<{ id: string; values: Record<string, string> }>(SECRETS_COLLECTION, 'single')),
  };
}

/** Every registered workspace, page by page (the catalog's discovery reads each one's `.svc/` folder). */
export async function allWorkspaces(repository: WorkspaceRepository): Promise<WorkspaceRecord[]> {
  const all: WorkspaceRecord[] = [];
  for (;;) {
    const page = await repository.list({ limit: 500, offset: all.length });
    all.push(...page.items);
    if (page.items.length === 0 || all.length >= page.total) return all;
  }
}
