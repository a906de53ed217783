/**
 * The assistant configuration on PostgreSQL (docs/scaling.md): one row of `config`, the same
 * interface as the file store's (repository.ts). `replaceIf` is one conditional statement, so of
 * two servers patching at once one writes and the other reads again.
 */

import { asJson, type PostgresDatabase } from '../store/postgres/index.js';
import { ASSISTANTS_KEY, type AssistantsConfigRepository, type StoredAssistants } from './repository.js';

export function postgresAssistantsConfigRepository(db: PostgresDatabase): AssistantsConfigRepository {
  return {
    get: async () => (await db.query<{ record: StoredAssistants }>('SELECT record FROM config WHERE id = $1', [ASSISTANTS_KEY])).rows[0]?.record,
    async replaceIf(expected, next) {
      const { rowCount } =
        expected === undefined
          ? await db.query('INSERT INTO config (id, record) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [ASSISTANTS_KEY, asJson(next)])
          : // jsonb equality compares values, not key order: the record is still what the caller read.
            await db.query('UPDATE config SET record = $3 WHERE id = $1 AND record = $2::jsonb', [ASSISTANTS_KEY, asJson(expected), asJson(next)]);
      return (rowCount ?? 0) > 0;
    },
  };
}
