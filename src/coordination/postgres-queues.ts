/**
 * Which server processes a workspace's landing queue on a shared database (docs/scaling.md;
 * docs/decisions.md, "Landing queue"): a row per workspace naming its holder, held while that
 * server's lease in `svc_servers` holds (the run claims' heartbeat renews it). A server whose lease
 * ran out loses it to the next that asks, in one statement, so of servers asking together one wins.
 */

import type { PostgresDatabase } from '../store/postgres/index.js';
import type { QueueCoordination } from './types.js';

export function postgresQueueCoordination(db: PostgresDatabase, serverId: string): QueueCoordination {
  return {
    async hold(workspaceId) {
      const { rows } = await db.query<{ server_id: string }>(
        `INSERT INTO landing_queue_holders AS h (workspace_id, server_id) VALUES ($1, $2)
         ON CONFLICT (workspace_id) DO UPDATE SET server_id = EXCLUDED.server_id
           WHERE h.server_id = EXCLUDED.server_id
              OR NOT EXISTS (SELECT 1 FROM svc_servers s WHERE s.id = h.server_id AND s.lease_until >= now())
         RETURNING server_id`,
        [workspaceId, serverId],
      );
      return rows[0]?.server_id === serverId;
    },
    async release(workspaceId) {
      await db.query('DELETE FROM landing_queue_holders WHERE workspace_id = $1 AND server_id = $2', [workspaceId, serverId]);
    },
  };
}
