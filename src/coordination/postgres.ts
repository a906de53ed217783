/**
 * The coordination of servers sharing one PostgreSQL database (docs/scaling.md): the runs' leases
 * and claims (postgres-runs.ts), who answers each conversation (postgres-answering.ts), and which
 * home holds a worktree (postgres-homes.ts). One lease per server covers runs and conversations:
 * the run heartbeat also takes over the conversations of dead servers.
 *
 * A process that does not take part (`takesPart` false: the CLI's offline mode on the database)
 * registers no lease, claims nothing and answers nothing, but hands what it changes to the servers
 * as a server would: a run it leaves pending is announced, a stop of a run a server executes is
 * forwarded there, a message it accepts is left pending for a server and announced.
 */

import type { Logger } from '../shared/logger.js';
import type { Notifier, PostgresDatabase } from '../store/postgres/index.js';
import { handOffAnswering, postgresAnswering } from './postgres-answering.js';
import { notifyingHomes } from './postgres-homes.js';
import { postgresHolding } from './postgres-holders.js';
import { postgresQueueCoordination } from './postgres-queues.js';
import { postgresRunCoordination } from './postgres-runs.js';
import type { Coordination } from './types.js';

export interface PostgresCoordinationOptions {
  db: PostgresDatabase;
  notifier: Notifier;
  logger: Logger;
  /** `SVC_RUN_LEASE_MS`. */
  leaseMs: number;
  /** This process's home: its id (store/home-id.ts) and its `SVC_HOME` path. */
  home: { id: string; path: string };
  serverId: string;
  /** Tells this process's own announcements apart from the others' (its server id, or one of its own for a CLI process). */
  sender: string;
  /** A server takes part in leases, claims and answering; a CLI process only hands over. */
  takesPart: boolean;
}

export function postgresCoordination(options: PostgresCoordinationOptions): Coordination {
  const { db, notifier, logger, serverId, takesPart } = options;
  const answering = takesPart ? postgresAnswering({ db, notifier, serverId, logger }) : undefined;
  const runs = postgresRunCoordination({
    db,
    notifier,
    logger,
    leaseMs: options.leaseMs,
    home: options.home,
    serverId,
    onBeat: answering ? () => answering.sweep() : undefined,
  });
  const send = (channel: string, payload: string) => db.query('SELECT pg_notify($1, $2)', [channel, payload]);
  const homes = notifyingHomes(
    { notify: send, listen: takesPart ? (channel, handler) => notifier.listen(channel, handler) : undefined },
    options.home.id,
    options.sender,
  );
  // Only a server processes landing queues: a CLI process leaves them to the servers.
  const queues = takesPart ? postgresQueueCoordination(db, serverId) : { hold: async () => false, release: async () => {} };
  // Only a server follows pull requests, one server each (docs/decisions.md, "Pull request reactions").
  const pulls = takesPart ? postgresHolding(db, serverId, 'pull_follow_holders', 'run_id') : { hold: async () => false, release: async () => {} };
  return { serverId, runs, queues, pulls, answering: answering ?? handOffAnswering(notifier), homes, placesRunsAtLaunch: true, runsMayBeTakenOver: true };
}
