/**
 * The runs' part of the coordination on PostgreSQL (docs/scaling.md): servers register in
 * `svc_servers` with a lease that a heartbeat renews; `runs.server_id` records the server that claimed (and executes) a run. Each
 * heartbeat also looks for servers whose lease expired: their runs are taken over in one statement
 * (so exactly one server takes each), and the server is removed. Hints between servers go over
 * LISTEN/NOTIFY; every hint is also covered by the heartbeat, so a lost one only delays.
 */

import { hostname } from 'node:os';
import type { Logger } from '../shared/logger.js';
import { newId } from '../shared/ids.js';
import type { Notifier, PostgresDatabase } from '../store/postgres/index.js';
import type { ForwardedStop, RunAnnouncements, RunCoordination, RunLocation } from './types.js';

const PENDING = 'svc_runs_pending';
const STOPS = 'svc_run_stops';

export interface PostgresRunClaimsOptions {
  db: PostgresDatabase;
  notifier: Notifier;
  logger: Logger;
  leaseMs: number;
  /** This server's home: its id (store/home-id.ts) and its `SVC_HOME` path, as a waiting run names it. */
  home: { id: string; path: string };
  serverId?: string;
  /** After each heartbeat: what else is leased to servers (conversations) is taken over from dead ones then. */
  onBeat?: () => Promise<void>;
}

/**
 * A process that does not take part (the CLI's offline mode on the database) never calls `start`:
 * it registers no lease and claims nothing, but hands what it changes to the servers as a server
 * would: a run it leaves pending is announced, a stop of a run a server executes is forwarded there.
 */
export function postgresRunCoordination(options: PostgresRunClaimsOptions): RunCoordination {
  const { db, notifier, logger, leaseMs } = options;
  const serverId = options.serverId ?? newId('srv');
  let timer: NodeJS.Timeout | undefined;
  let unlisten: Array<() => Promise<void>> = [];
  let beating: Promise<void> | undefined;
  let events: RunAnnouncements | undefined;

  const lease = `${leaseMs} milliseconds`;
  const homeId = options.home.id;
  const register = () =>
    db.query(
      `INSERT INTO svc_servers (id, lease_until, home_id) VALUES ($1, now() + $2::interval, $3)
       ON CONFLICT (id) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
      [serverId, lease, homeId],
    );
  /** A run with no worktree, or one in this home: this server may execute it. */
  const inThisHome = (param: string) => `(home_id IS NULL OR home_id = ${param})`;

  /** Renews the lease, then takes over the runs of every server whose lease has expired. */
  const heartbeat = async () => {
    await register();
    const taken = await db.transaction(async (client) => {
      const dead = await client.query<{ id: string }>('DELETE FROM svc_servers WHERE lease_until < now() RETURNING id');
      if (dead.rows.length === 0) return [];
      const runs = await client.query<{ id: string }>('UPDATE runs SET server_id = $1 WHERE server_id = ANY($2::text[]) AND status IN ($3, $4) RETURNING id', [
        serverId,
        dead.rows.map((row) => row.id),
        'running',
        'pending',
      ]);
      logger.warn('server.lease_expired', { servers: dead.rows.map((row) => row.id), runs: runs.rows.length });
      return runs.rows.map((row) => row.id);
    });
    if (taken.length > 0) void events?.orphaned(taken);
    // Pending runs are looked at on every beat too: a notification lost while reconnecting only delays them.
    events?.pending();
    await options.onBeat?.();
  };
  const beat = () => {
    beating ??= heartbeat()
      .catch((error: unknown) => logger.error('server.heartbeat_failed', { error: (error as Error).message }))
      .finally(() => (beating = undefined));
    return beating;
  };

  const unclaim = async (runId: string) => {
    await db.query('UPDATE runs SET server_id = NULL WHERE id = $1 AND server_id = $2', [runId, serverId]);
  };

  return {
    async start(handlers) {
      events = handlers;
      await db.query(
        `INSERT INTO svc_homes (id, host, path) VALUES ($1, $2, $3)
         ON CONFLICT (id) DO UPDATE SET host = EXCLUDED.host, path = EXCLUDED.path, seen_at = now()`,
        [homeId, hostname(), options.home.path],
      );
      unlisten = [
        await notifier.listen(PENDING, () => events?.pending()),
        await notifier.listen(STOPS, (payload) => {
          const { runId, op } = JSON.parse(payload) as { runId: string; op: ForwardedStop };
          events?.stop(runId, op);
        }),
      ];
      notifier.onReconnect(() => events?.pending());
      await beat();
      timer = setInterval(() => void beat(), Math.max(100, Math.floor(leaseMs / 3)));
      timer.unref();
    },
    async claim(limit) {
      if (limit <= 0) return [];
      const { rows } = await db.query<{ id: string }>(
        `UPDATE runs SET server_id = $1 WHERE id IN (
           SELECT id FROM runs WHERE status = 'pending' AND server_id IS NULL AND ${inThisHome('$3')}
           ORDER BY created_at, id LIMIT $2 FOR UPDATE SKIP LOCKED
         ) RETURNING id, created_at`,
        [serverId, limit, homeId],
      );
      return rows.map((row) => row.id);
    },
    async claimRun(runId) {
      const { rowCount } = await db.query(
        `UPDATE runs SET server_id = $1 WHERE id = $2 AND status = 'pending' AND (server_id IS NULL OR server_id = $1) AND ${inThisHome('$3')}`,
        [serverId, runId, homeId],
      );
      return (rowCount ?? 0) > 0;
    },
    async offer(runId) {
      // Written as held by the process that made it pending (so no other claimed it before its events were written): let it go.
      await unclaim(runId);
      notifier.notify(PENDING, '').catch((error: unknown) => logger.warn('run.announce_failed', { error: (error as Error).message }));
    },
    unclaim,
    // A pending run waits in the database; a stopped one leaves every claim by its status.
    withdraw: () => {},
    waiting: 0,
    // A run this server does not execute may be another's: the stop is forwarded, and a dead holder's lease runs out.
    executesElsewhere: () => true,
    async bindHome(runId) {
      await db.query('UPDATE runs SET home_id = $2 WHERE id = $1', [runId, homeId]);
    },
    async boundElsewhere(runId) {
      const { rows } = await db.query<{ home_id: string | null }>('SELECT home_id FROM runs WHERE id = $1', [runId]);
      const home = rows[0]?.home_id ?? null;
      return home !== null && home !== homeId;
    },
    async location(runId): Promise<RunLocation> {
      const { rows } = await db.query<{ server_id: string | null; home_id: string | null; host: string | null; path: string | null; servers: number }>(
        `SELECT r.server_id, r.home_id, h.host, h.path,
           (SELECT count(*)::int FROM svc_servers s WHERE s.home_id = r.home_id AND s.lease_until >= now()) AS servers
         FROM runs r LEFT JOIN svc_homes h ON h.id = r.home_id WHERE r.id = $1`,
        [runId],
      );
      const row = rows[0];
      if (!row) return { serverId: null, home: null };
      return { serverId: row.server_id, home: row.home_id === null ? null : { id: row.home_id, host: row.host, path: row.path, servers: row.servers } };
    },
    forwardStop: (runId, op) => notifier.notify(STOPS, JSON.stringify({ runId, op })),
    async share() {
      const servers = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM svc_servers WHERE lease_until >= now()');
      const running = await db.query<{ server_id: string; n: number }>(
        "SELECT server_id, count(*)::int AS n FROM runs WHERE status = 'running' AND server_id IS NOT NULL GROUP BY server_id",
      );
      return { servers: servers.rows[0]!.n, running: Object.fromEntries(running.rows.map((row) => [row.server_id, row.n])) };
    },
    async close() {
      if (timer) clearInterval(timer);
      events = undefined;
      await beating;
      for (const stop of unlisten) await stop().catch(() => {});
      // Claimed but not started: any other server may take them now.
      await db.query("UPDATE runs SET server_id = NULL WHERE server_id = $1 AND status = 'pending'", [serverId]).catch(() => {});
      await db.query('DELETE FROM svc_servers WHERE id = $1', [serverId]).catch(() => {});
    },
  };
}
