/**
 * One process at a time holds a piece of work on a shared database (docs/scaling.md): a row per key
 * naming its holder, held while that server's lease in `svc_servers` holds (the run claims'
 * heartbeat renews it). A server whose lease ran out loses it to the next that asks, in one
 * statement, so of servers asking together one wins. A workspace's landing queue
 * (postgres-queues.ts) and a run's followed pull request (`pull_follow_holders`) are held this way.
 */

import type { PostgresDatabase } from '../store/postgres/index.js';

export interface Holding {
  /** Holds `key` unless another live process does; resolves to whether this one holds it now. */
  hold(key: string): Promise<boolean>;
  /** Lets it go. */
  release(key: string): Promise<void>;
}

/** `table` has a text primary key column `column` and a `server_id`; both are svc's own names, never input. */
export function postgresHolding(db: PostgresDatabase, serverId: string, table: string, column: string): Holding {
  return {
    async hold(key) {
      const { rows } = await db.query<{ server_id: string }>(
        `INSERT INTO ${table} AS h (${column}, server_id) VALUES ($1, $2)
         ON CONFLICT (${column}) DO UPDATE SET server_id = EXCLUDED.server_id
           WHERE h.server_id = EXCLUDED.server_id
              OR NOT EXISTS (SELECT 1 FROM svc_servers s WHERE s.id = h.server_id AND s.lease_until >= now())
         RETURNING server_id`,
        [key, serverId],
      );
      return rows[0]?.server_id === serverId;
    },
    async release(key) {
      await db.query(`DELETE FROM ${table} WHERE ${column} = $1 AND server_id = $2`, [key, serverId]);
    },
  };
}
