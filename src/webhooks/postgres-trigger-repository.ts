/**
 * The webhook trigger registry on PostgreSQL (docs/scaling.md): one row per slug, the same
 * interface as the file store's (trigger-repository.ts). Each write is one conditional statement
 * on the record the writer read (jsonb equality: values, not key order), so of two servers
 * refreshing one slug at once, one writes and the other reads again.
 */

import { asJson, type PostgresDatabase } from '../store/postgres/index.js';
import { bySlug, type TriggerRecord, type TriggerRepository } from './trigger-repository.js';

export function postgresTriggerRepository(db: PostgresDatabase): TriggerRepository {
  const records = async (sql: string, params: unknown[] = []) => (await db.query<{ record: TriggerRecord }>(sql, params)).rows.map((row) => row.record);
  const changed = async (sql: string, params: unknown[]) => ((await db.query(sql, params)).rowCount ?? 0) > 0;
  return {
    find: async (slug) => (await records('SELECT record FROM webhook_triggers WHERE slug = $1', [slug]))[0],
    // Sorted here, not by the database's collation: the order is the file store's.
    listLive: async () => (await records('SELECT record FROM webhook_triggers WHERE NOT removed')).sort(bySlug),
    listUnder: (dirs) => records('SELECT record FROM webhook_triggers WHERE cwd = ANY($1::text[])', [[...dirs]]),
    put: (record, expected) =>
      expected === undefined
        ? changed('INSERT INTO webhook_triggers (slug, record) VALUES ($1, $2) ON CONFLICT (slug) DO NOTHING', [record.slug, asJson(record)])
        : changed('UPDATE webhook_triggers SET record = $3 WHERE slug = $1 AND record = $2::jsonb', [record.slug, asJson(expected), asJson(record)]),
    delete: (expected) => changed('DELETE FROM webhook_triggers WHERE slug = $1 AND record = $2::jsonb', [expected.slug, asJson(expected)]),
    markRemoved: (expected) =>
      changed(`UPDATE webhook_triggers SET record = record || '{"removed": true}'::jsonb WHERE slug = $1 AND record = $2::jsonb`, [
        expected.slug,
        asJson(expected),
      ]),
  };
}
