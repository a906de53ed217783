/** The PostgreSQL store (docs/decisions.md, "PostgreSQL store"): connection, migrations, query helpers. */
export { openPostgres, type PostgresDatabase, type PostgresOptions, type Queryable } from './database.js';
export { migrate, MIGRATION_LOCK_KEY, type Migration, type MigrationResult } from './migrate.js';
export { MIGRATIONS } from './migrations.js';
export { asJson, likePrefix, selectPage, type PageQuery } from './page.js';
export { openNotifier, type Notifier, type NotifierOptions } from './notifier.js';
export { openEventFeed, type EventFeed, type EventFeedOptions } from './event-feed.js';
export { CONNECT_TIMEOUT_MS, DatabaseUnavailableError } from './errors.js';
