/**
 * Which server processes a workspace's landing queue on a shared database (docs/scaling.md;
 * docs/decisions.md, "Landing queue"): a row per workspace naming its holder, held while that
 * server's lease in `svc_servers` holds (postgres-holders.ts).
 */

import type { PostgresDatabase } from '../store/postgres/index.js';
import { postgresHolding } from './postgres-holders.js';
import type { QueueCoordination } from './types.js';

export function postgresQueueCoordination(db: PostgresDatabase, serverId: string): QueueCoordination {
  return postgresHolding(db, serverId, 'landing_queue_holders', 'workspace_id');
}
