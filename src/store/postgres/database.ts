import pg from 'pg';
import type { Logger } from '../../shared/logger.js';
import { CONNECT_TIMEOUT_MS, DatabaseUnavailableError } from './errors.js';
import { migrate, type Migration, type MigrationResult } from './migrate.js';
import { MIGRATIONS } from './migrations.js';

/** What a query of ours gets: parameters positional (`$1`), rows typed by the caller. */
export interface Queryable {
  query<T extends pg.QueryResultRow = pg.QueryResultRow>(text: string, params?: unknown[]): Promise<pg.QueryResult<T>>;
}

/**
 * The PostgreSQL store's connection: a pool, and the schema brought up to date before anything
 * else uses it (docs/decisions.md, "PostgreSQL store").
 */
export interface PostgresDatabase extends Queryable {
  /** Runs `work` in one transaction on one connection; rolled back when it throws. */
  transaction<T>(work: (client: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs `work` after every `inOrder` work asked before it has finished: stream events take their
   * positions from one sequence, and a process publishes them in the order it asked for them, so
   * it must take them in that order too (a pool would run the inserts on several connections).
   */
  inOrder<T>(work: () => Promise<T>): Promise<T>;
  /** The migrations this process applied when it opened (none when another server had). */
  readonly migrations: MigrationResult;
  /** Proves the database answers (for `/health/db`). */
  check(): Promise<void>;
  close(): Promise<void>;
}

export interface PostgresOptions {
  url: string;
  logger: Logger;
  /** Connections this process opens at most. @default 10 */
  maxConnections?: number;
  /** For tests of the migrator only; the schema svc uses is MIGRATIONS. */
  migrations?: readonly Migration[];
}

export async function openPostgres(options: PostgresOptions): Promise<PostgresDatabase> {
  // A connect timeout: a host that drops packets, or a listener that never answers, is an error, not a hang.
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    application_name: 'svc',
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  // An idle connection the server dropped (a restart) must not take the process down with it.
  pool.on('error', (error) => options.logger.warn('store.postgres_connection_lost', { error: error.message }));
  let migrations: MigrationResult;
  try {
    migrations = await migrate(pool, options.migrations ?? MIGRATIONS, options.logger);
  } catch (error) {
    await pool.end();
    throw new DatabaseUnavailableError(error);
  }
  let tail: Promise<unknown> = Promise.resolve();
  return {
    migrations,
    query: (text, params) => pool.query(text, params),
    inOrder(work) {
      const result = tail.then(work);
      tail = result.catch(() => undefined);
      return result;
    },
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async check() {
      await pool.query('SELECT 1');
    },
    close: () => pool.end(),
  };
}
