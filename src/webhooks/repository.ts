/**
 * Where webhooks keep their records, behind async repositories so that a database can take the
 * file store's place (docs/decisions.md, "Webhooks"):
 * - dedupe records, with an insert-if-absent on (slug, key) — in a database a unique key; here
 *   checked and set in one synchronous step, then written with fsync before it resolves;
 * - the delivery history, bounded: two alternating JSONL generations of at most
 *   `DELIVERY_HISTORY` entries each, the older dropped when the newer fills.
 */

import type { Collection, Store } from '../store/index.js';
import type { DedupeRecord, DeliveryOutcome, DeliveryRecord } from './records.js';

export type InsertResult<T> = { inserted: true; record: T } | { inserted: false; existing: T };

export interface DedupeRepository {
  /** Inserts unless a record of the same id that has not expired at `now` exists (an expired one is replaced). */
  insertIfAbsent(record: DedupeRecord, now: number): Promise<InsertResult<DedupeRecord>>;
  /** Replaces a record (marking it accepted, or taking over one a crash left reserved). */
  replace(record: DedupeRecord, options?: { sync?: boolean }): Promise<void>;
  /** Removes the record if it is still the one given (a delivery that did not go on to its run). */
  release(record: DedupeRecord): Promise<void>;
  /** Removes the records expired at `now`; resolves to how many. */
  pruneExpired(now: number): Promise<number>;
}

export interface DeliveryFilter {
  slug?: string;
  outcome?: DeliveryOutcome;
  limit?: number;
}

export interface DeliveryLog {
  append(delivery: DeliveryRecord): Promise<void>;
  /** Newest first. */
  list(filter?: DeliveryFilter): Promise<DeliveryRecord[]>;
}

export const DEDUPE_COLLECTION = 'webhook-dedupe';
const DELIVERIES_LOG = 'webhook-deliveries';
/** How many deliveries the history keeps (at least; up to twice as many on disk). */
export const DELIVERY_HISTORY = 1000;

function dedupeOn(collection: Collection<DedupeRecord>): DedupeRepository {
  return {
    async insertIfAbsent(record, now) {
      // Checked and set in one synchronous step: two deliveries of one key cannot both insert.
      const existing = collection.get(record.id);
      if (existing && existing.expiresAt > now) return { inserted: false, existing };
      await collection.put(record);
      return { inserted: true, record };
    },
    replace: (record, options) => collection.put(record, options),
    async release(record) {
      const current = collection.get(record.id);
      if (current && current.runId === record.runId) await collection.delete(record.id);
    },
    async pruneExpired(now) {
      const expired = collection.filter((r) => r.expiresAt <= now);
      let removed = 0;
      for (const { id } of expired) {
        // Looked at again just before: a redelivery may have put a fresh record there meanwhile.
        const current = collection.get(id);
        if (current && current.expiresAt <= now && (await collection.delete(id))) removed++;
      }
      return removed;
    },
  };
}

async function deliveriesOn(store: Store, history: number): Promise<DeliveryLog> {
  const log = store.log<DeliveryRecord>(DELIVERIES_LOG);
  const [a, b] = await Promise.all([log.read('a'), log.read('b')]);
  const newest = (entries: DeliveryRecord[]) => entries.at(-1)?.id ?? '';
  // The generation written last is the current one; ids sort by time.
  let current: 'a' | 'b' = newest(a) >= newest(b) ? 'a' : 'b';
  let currentCount = current === 'a' ? a.length : b.length;
  const recent: DeliveryRecord[] = (current === 'a' ? [...b, ...a] : [...a, ...b]).slice(-history);
  let rotation: Promise<void> = Promise.resolve();
  return {
    async append(delivery) {
      recent.push(delivery);
      if (recent.length > history) recent.shift();
      if (currentCount >= history) {
        current = current === 'a' ? 'b' : 'a';
        currentCount = 0;
        rotation = log.remove(current);
      }
      currentCount += 1;
      const key = current;
      await rotation;
      await log.append(key, delivery);
    },
    async list(filter = {}) {
      const limit = filter.limit ?? 100;
      const out: DeliveryRecord[] = [];
      for (let i = recent.length - 1; i >= 0 && out.length < limit; i--) {
        const d = recent[i] as DeliveryRecord;
        if ((filter.slug === undefined || d.slug === filter.slug) && (filter.outcome === undefined || d.outcome === filter.outcome)) out.push(d);
      }
      return out;
    },
  };
}

export interface WebhookRepositories {
  dedupe: DedupeRepository;
  deliveries: DeliveryLog;
}

export async function openWebhookRepositories(store: Store, options: { history?: number } = {}): Promise<WebhookRepositories> {
  return {
    dedupe: dedupeOn(await store.collection<DedupeRecord>(DEDUPE_COLLECTION, 'per-record')),
    deliveries: await deliveriesOn(store, options.history ?? DELIVERY_HISTORY),
  };
}
