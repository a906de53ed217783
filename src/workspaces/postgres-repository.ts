/**
 * The workspace repositories on PostgreSQL (docs/decisions.md, "PostgreSQL store"): the same
 * interfaces as the file store's (repository.ts), answered by queries on the tables of
 * src/store/postgres/migrations.ts. Dedupe by clone URL or directory is the unique index on
 * `source_key`, so two servers registering one repository together make one workspace.
 */

import { asJson, likePrefix, selectPage, type PostgresDatabase } from '../store/postgres/index.js';
import { pickOne, shortIdPrefix } from '../shared/short-ids.js';
import { WORKSPACE_IDS, type Environment, type WorkspaceRecord } from './records.js';
import type { EnvironmentRepository, WorkspaceRepositories, WorkspaceRepository, WorkspaceSecretRepository } from './repository.js';

/** `{...current, ...patch, id}` in SQL: jsonb `||` merges top-level keys, and the id never changes. */
const MERGE_PATCH = "record || $2::jsonb || jsonb_build_object('id', id)";

function workspacesIn(db: PostgresDatabase): WorkspaceRepository {
  const bySourceKey = async (key: string) =>
    (await db.query<{ record: WorkspaceRecord }>('SELECT record FROM workspaces WHERE source_key = $1', [key])).rows[0]?.record;
  return {
    async insertIfAbsent(record) {
      for (;;) {
        const { rows } = await db.query<{ record: WorkspaceRecord }>(
          'INSERT INTO workspaces (id, record) VALUES ($1, $2) ON CONFLICT (source_key) DO NOTHING RETURNING record',
          [record.id, asJson(record)],
        );
        if (rows[0]) return { inserted: true, record: rows[0].record };
        const existing = await bySourceKey(record.source_key);
        // Deleted between the two statements: the key is free again, so try the insert again.
        if (existing) return { inserted: false, existing };
      }
    },
    get: async (id) => (await db.query<{ record: WorkspaceRecord }>('SELECT record FROM workspaces WHERE id = $1', [id])).rows[0]?.record,
    findBySourceKey: bySourceKey,
    async resolve(ref) {
      // Workspaces are a developer's few repositories: the name is read from the record, with no index of its own.
      const prefix = shortIdPrefix(WORKSPACE_IDS, ref);
      const { rows } = await db.query<{ record: WorkspaceRecord }>(
        `SELECT record FROM workspaces WHERE id = $1 OR record->>'name' = $1 OR ($2::text IS NOT NULL AND id LIKE $2 ESCAPE '\\')
         ORDER BY created_at, id`,
        [ref, prefix === undefined ? null : likePrefix(prefix)],
      );
      const records = rows.map((row) => row.record);
      return pickOne(
        WORKSPACE_IDS,
        ref,
        records.find((w) => w.id === ref),
        records,
      );
    },
    list: ({ limit = 50, offset = 0 } = {}) =>
      selectPage<WorkspaceRecord>(db, { from: 'workspaces', where: [], params: [], orderBy: 'created_at, id', limit, offset }),
    update: async (id, patch) =>
      (await db.query<{ record: WorkspaceRecord }>(`UPDATE workspaces SET record = ${MERGE_PATCH} WHERE id = $1 RETURNING record`, [id, asJson(patch)])).rows[0]
        ?.record,
    delete: async (id) => ((await db.query('DELETE FROM workspaces WHERE id = $1', [id])).rowCount ?? 0) > 0,
  };
}

function environmentsIn(db: PostgresDatabase): EnvironmentRepository {
  return {
    async insert(environment) {
      // Replaces one of the same id, as the file store's put does.
      await db.query('INSERT INTO workspace_environments (id, record) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record', [
        environment.id,
        asJson(environment),
      ]);
    },
    get: async (id) => (await db.query<{ record: Environment }>('SELECT record FROM workspace_environments WHERE id = $1', [id])).rows[0]?.record,
    list(filter = {}) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (filter.workspaceId) where.push(`workspace_id = $${params.push(filter.workspaceId)}`);
      if (filter.runId) where.push(`run_id = $${params.push(filter.runId)}`);
      return selectPage<Environment>(db, {
        from: 'workspace_environments',
        where,
        params,
        orderBy: 'created_at DESC, id DESC',
        limit: filter.limit ?? 200,
        offset: filter.offset ?? 0,
      });
    },
    update: async (id, patch) =>
      (await db.query<{ record: Environment }>(`UPDATE workspace_environments SET record = ${MERGE_PATCH} WHERE id = $1 RETURNING record`, [id, asJson(patch)]))
        .rows[0]?.record,
    delete: async (id) => ((await db.query('DELETE FROM workspace_environments WHERE id = $1', [id])).rowCount ?? 0) > 0,
  };
}

function secretsIn(db: PostgresDatabase): WorkspaceSecretRepository {
  const names = async (workspaceId: string) =>
    (await db.query<{ name: string }>('SELECT name FROM workspace_env WHERE workspace_id = $1', [workspaceId])).rows.map((row) => row.name).sort();
  return {
    async get(workspaceId) {
      const { rows } = await db.query<{ name: string; value: string }>('SELECT name, value FROM workspace_env WHERE workspace_id = $1', [workspaceId]);
      return Object.fromEntries(rows.map((row) => [row.name, row.value]));
    },
    async merge(workspaceId, values) {
      const entries = Object.entries(values);
      if (entries.length > 0) {
        await db.query(
          `INSERT INTO workspace_env (workspace_id, name, value) SELECT $1, name, value FROM unnest($2::text[], $3::text[]) AS v(name, value)
           ON CONFLICT (workspace_id, name) DO UPDATE SET value = EXCLUDED.value`,
          [workspaceId, entries.map(([name]) => name), entries.map(([, value]) => value)],
        );
      }
      // Sorted here rather than by the database, so the order is the file store's whatever the collation.
      return names(workspaceId);
    },
    unset: async (workspaceId, key) =>
      ((await db.query('DELETE FROM workspace_env WHERE workspace_id = $1 AND name = $2', [workspaceId, key])).rowCount ?? 0) > 0,
    async clear(workspaceId) {
      await db.query('DELETE FROM workspace_env WHERE workspace_id = $1', [workspaceId]);
    },
  };
}

/** The PostgreSQL implementation of the workspace repositories. */
export function postgresWorkspaceRepositories(db: PostgresDatabase): WorkspaceRepositories {
  return { workspaces: workspacesIn(db), environments: environmentsIn(db), secrets: secretsIn(db) };
}
