import type pg from 'pg';
import type { Logger } from '../../shared/logger.js';

/** One schema change: applied once, in version order, in a transaction of its own. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export interface MigrationResult {
  /** Versions this call applied, ascending; [] when the schema was already current. */
  applied: number[];
  /** The schema version the database is at now. */
  version: number;
}

/**
 * The advisory lock every svc server takes to migrate: a fixed 64-bit key of our own ("svc" and a
 * 1), so that two servers starting together cannot both migrate — the second waits, then finds
 * nothing left to do.
 */
export const MIGRATION_LOCK_KEY = 0x7376_6300_0001n;

/**
 * Brings the database to the newest schema of `migrations`. The lock is a session lock held on one
 * dedicated connection for the whole run (a transaction-level one would end with the first
 * migration's transaction). A database at a version newer than we know is refused: an older svc
 * must not write a schema it does not understand.
 */
export async function migrate(pool: pg.Pool, migrations: readonly Migration[], logger: Logger): Promise<MigrationResult> {
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    try {
      await client.query(
        `CREATE TABLE IF NOT EXISTS svc_schema_migrations (
           version integer PRIMARY KEY,
           name text NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
      const { rows } = await client.query<{ version: number }>('SELECT version FROM svc_schema_migrations');
      const done = new Set(rows.map((row) => row.version));
      const newest = Math.max(0, ...done);
      const known = ordered.at(-1)?.version ?? 0;
      if (newest > known) {
        throw new Error(`The database schema is at version ${newest}, newer than this svc knows (${known}): upgrade svc.`);
      }
      const applied: number[] = [];
      for (const migration of ordered) {
        if (done.has(migration.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO svc_schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          throw new Error(`Migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`, { cause: error });
        }
        applied.push(migration.version);
        logger.info('store.migration_applied', { version: migration.version, name: migration.name });
      }
      return { applied, version: Math.max(newest, known) };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()]).catch(() => {});
    }
  } finally {
    client.release();
  }
}
