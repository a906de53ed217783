/**
 * Kept apart from the driver: the CLI matches this class (from the runtime bundle) without loading
 * `pg` for every command.
 */

/** How long opening a connection to the database may take before the database counts as unreachable. */
export const CONNECT_TIMEOUT_MS = 10_000;

/**
 * The database of `SVC_DATABASE_URL` (or `--database-url`) cannot be used: unreachable, silent,
 * refusing the login, or holding a schema this svc cannot use. The message is the driver's or the
 * database's reason and never the URL, which may hold a password (docs/scaling.md).
 */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`Cannot use the PostgreSQL database: ${reasonOf(cause)}.`, { cause });
    this.name = 'DatabaseUnavailableError';
  }
}

function reasonOf(cause: unknown): string {
  const message = (cause instanceof Error ? cause.message : String(cause)).trim().replace(/\.$/, '');
  // The driver's words for a connection that got no answer in time (pg-pool's, and pg's own).
  if (/timeout exceeded when trying to connect|connection timeout/i.test(message)) return `no answer within ${CONNECT_TIMEOUT_MS / 1000} s`;
  return message;
}
