/**
 * Followed pull requests on PostgreSQL (docs/decisions.md, "PostgreSQL store"): one row per run,
 * the same interface as the file store's (repository.ts); what the timer and webhook deliveries ask
 * for (due, by pull request, by branch) are generated columns with indexes; `replaceIf` is one
 * conditional UPDATE.
 */

import { asJson, type PostgresDatabase } from '../store/postgres/index.js';
import { cleanStrings } from './clean-text.js';
import type { PullFollow } from './records.js';
import type { PullRepository } from './repository.js';

/**
 * `serverId`: the server whose timer asks what is due; its `due` leaves out the follows another live
 * server holds (`pull_follow_holders`, held while that server's lease in `svc_servers` holds:
 * coordination/postgres-holders.ts), so a batch is never spent on pull requests this one cannot take.
 * Null (a CLI process, which looks at nothing): every follow due.
 */
export function postgresPullRepository(db: PostgresDatabase, serverId: string | null = null): PullRepository {
  const follows = async (text: string, params: unknown[]) => (await db.query<{ record: PullFollow }>(text, params)).rows.map((row) => row.record);
  return {
    add: async (follow) =>
      (
        await follows('INSERT INTO pull_follows (run_id, record) VALUES ($1, $2::jsonb) ON CONFLICT (run_id) DO NOTHING RETURNING record', [
          follow.runId,
          asJson(cleanStrings(follow)),
        ])
      )[0],
    get: async (runId) => (await follows('SELECT record FROM pull_follows WHERE run_id = $1', [runId]))[0],
    due: (now, limit) =>
      serverId === null
        ? follows('SELECT record FROM pull_follows WHERE active AND next_look_at <= $1 ORDER BY next_look_at COLLATE "C" LIMIT $2', [now, limit])
        : follows(
            `SELECT f.record FROM pull_follows f
             WHERE f.active AND f.next_look_at <= $1
               AND NOT EXISTS (
                 SELECT 1 FROM pull_follow_holders h JOIN svc_servers s ON s.id = h.server_id
                 WHERE h.run_id = f.run_id AND h.server_id <> $3 AND s.lease_until >= now())
             ORDER BY f.next_look_at COLLATE "C" LIMIT $2`,
            [now, limit, serverId],
          ),
    find: (query) =>
      'branch' in query
        ? follows('SELECT record FROM pull_follows WHERE active AND branch = $1', [query.branch])
        : follows('SELECT record FROM pull_follows WHERE active AND repo = $1 AND number = $2', [query.repo, query.number]),
    // jsonb equality compares values, not key order: the follow is still what the caller read.
    replaceIf: async (expected, next) =>
      ((
        await db.query('UPDATE pull_follows SET record = $3 WHERE run_id = $1 AND record = $2::jsonb', [
          expected.runId,
          asJson(cleanStrings(expected)),
          asJson(cleanStrings(next)),
        ])
      ).rowCount ?? 0) > 0,
    remove: async (runId) => ((await db.query('DELETE FROM pull_follows WHERE run_id = $1', [runId])).rowCount ?? 0) > 0,
  };
}
