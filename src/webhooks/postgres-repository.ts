/**
 * The webhook repositories on PostgreSQL (docs/decisions.md, "PostgreSQL store"), the same interfaces
 * as the file store's (repository.ts). Dedupe is the primary key on (the hash of) slug and key:
 * identical deliveries reaching different servers at once insert one record, and only an expired
 * record is replaced — in the same statement, so no second delivery slips in between.
 */

import { asJson, type PostgresDatabase } from '../store/postgres/index.js';
import type { DedupeRecord, DeliveryRecord } from './records.js';
import { DELIVERY_HISTORY, type DedupeRepository, type DeliveryLog, type WebhookRepositories } from './repository.js';

function dedupeIn(db: PostgresDatabase): DedupeRepository {
  return {
    async insertIfAbsent(record, now) {
      for (;;) {
        const { rows } = await db.query<{ record: DedupeRecord }>(
          `INSERT INTO webhook_dedupe (id, record) VALUES ($1, $2)
           ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record WHERE webhook_dedupe.expires_at <= $3
           RETURNING record`,
          [record.id, asJson(record), now],
        );
        if (rows[0]) return { inserted: true, record: rows[0].record };
        const existing = (await db.query<{ record: DedupeRecord }>('SELECT record FROM webhook_dedupe WHERE id = $1', [record.id])).rows[0]?.record;
        // Released between the two statements: the key is free again.
        if (existing) return { inserted: false, existing };
      }
    },
    // Every commit is durable: `sync: false` (cheap to redo) has nothing cheaper to choose here.
    async replace(record) {
      await db.query('INSERT INTO webhook_dedupe (id, record) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record', [
        record.id,
        asJson(record),
      ]);
    },
    async release(record) {
      await db.query('DELETE FROM webhook_dedupe WHERE id = $1 AND run_id = $2', [record.id, record.runId]);
    },
    // One statement: a record a redelivery renewed meanwhile no longer matches, so it stays.
    pruneExpired: async (now) => (await db.query('DELETE FROM webhook_dedupe WHERE expires_at <= $1', [now])).rowCount ?? 0,
  };
}

function deliveriesIn(db: PostgresDatabase, history: number): DeliveryLog {
  let sincePrune = 0;
  return {
    async append(delivery) {
      await db.query('INSERT INTO webhook_deliveries (record) VALUES ($1)', [asJson(delivery)]);
      // Trimmed to the newest `history` once per `history` appends of this process: at most twice
      // that many rows per server, as the file store keeps at most two generations.
      if (++sincePrune < history) return;
      sincePrune = 0;
      await db.query(
        `DELETE FROM webhook_deliveries
         WHERE position < (SELECT position FROM webhook_deliveries ORDER BY position DESC OFFSET $1 LIMIT 1)`,
        [history - 1],
      );
    },
    async list(filter = {}) {
      const where: string[] = [];
      const params: unknown[] = [history];
      if (filter.slug !== undefined) where.push(`slug = $${params.push(filter.slug)}`);
      if (filter.outcome !== undefined) where.push(`outcome = $${params.push(filter.outcome)}`);
      params.push(filter.limit ?? 100);
      // Only the newest `history` deliveries are the history, whatever is not trimmed yet.
      const { rows } = await db.query<{ record: DeliveryRecord }>(
        `SELECT record FROM (SELECT record, slug, outcome, position FROM webhook_deliveries ORDER BY position DESC LIMIT $1) AS recent
         ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY position DESC LIMIT $${params.length}`,
        params,
      );
      return rows.map((row) => row.record);
    },
  };
}

/** The PostgreSQL implementation of the webhook repositories. */
export function postgresWebhookRepositories(db: PostgresDatabase, options: { history?: number } = {}): WebhookRepositories {
  return { dedupe: dedupeIn(db), deliveries: deliveriesIn(db, options.history ?? DELIVERY_HISTORY) };
}
