/**
 * Where the webhook trigger registry is kept (trigger-registry.ts), behind an async repository so
 * a database can take the file store's place (docs/scaling.md): one record per slug. Every write
 * is conditional on the record the writer decided on, so two servers refreshing the registry at
 * once are serialized per slug: the second to write finds the first's record and decides again.
 */

import { isDeepStrictEqual } from 'node:util';
import type { Store } from '../store/index.js';
import type { WebhookTrigger } from '../workflows/index.js';

export interface TriggerRecord {
  /** The slug (the collection's key). */
  readonly id: string;
  readonly slug: string;
  readonly workflow: string;
  readonly workspaceId: string | null;
  /** Where a run it starts works: the project root the workflow was found under. */
  readonly cwd: string;
  readonly filename: string;
  /** Normalized: camelCase, `dedupeWindowSec` defaulted. */
  readonly trigger: WebhookTrigger;
  /**
   * The workflow file is gone: the slug stays known (a tombstone), so the webhook answers 409
   * `workflow_not_available` rather than 404, until another workflow claims the slug.
   */
  readonly removed?: true;
  /**
   * With a shared database, the host name of the server that registered it: `cwd` and `filename`
   * are paths of that machine, and only a server of that machine judges whether they still exist
   * (docs/scaling.md). Absent on the file store (one server, one machine).
   */
  readonly host?: string;
}

export const TRIGGERS_COLLECTION = 'webhook-triggers';

export interface TriggerRepository {
  find(slug: string): Promise<TriggerRecord | undefined>;
  /** The live triggers (not the tombstones of removed workflows), by slug. */
  listLive(): Promise<TriggerRecord[]>;
  /** Every record (tombstones too) registered from one of `dirs` (its `cwd`). */
  listUnder(dirs: readonly string[]): Promise<TriggerRecord[]>;
  /** Stores `record` while its slug still holds `expected` (undefined: nothing); resolves to whether it did. */
  put(record: TriggerRecord, expected: TriggerRecord | undefined): Promise<boolean>;
  /** Removes the record while it is still `expected`; resolves to whether it did. */
  delete(expected: TriggerRecord): Promise<boolean>;
  /** Makes the record a tombstone (`removed`) while it is still `expected`; resolves to whether it did. */
  markRemoved(expected: TriggerRecord): Promise<boolean>;
}

/** The order `listLive` gives. */
export const bySlug = (a: TriggerRecord, b: TriggerRecord) => a.slug.localeCompare(b.slug);

export async function openTriggerRepository(store: Store): Promise<TriggerRepository> {
  const collection = await store.collection<TriggerRecord>(TRIGGERS_COLLECTION, 'single');
  // Each write is checked and set in one synchronous step: one process, one writer (the store's lock).
  const holds = (expected: TriggerRecord | undefined, slug: string) => isDeepStrictEqual(collection.get(slug), expected);
  return {
    find: async (slug) => collection.get(slug),
    listLive: async () => collection.filter((t) => !t.removed).sort(bySlug),
    listUnder: async (dirs) => collection.filter((t) => dirs.includes(t.cwd)),
    async put(record, expected) {
      if (!holds(expected, record.slug)) return false;
      await collection.put(record);
      return true;
    },
    async delete(expected) {
      if (!holds(expected, expected.slug)) return false;
      await collection.delete(expected.slug);
      return true;
    },
    async markRemoved(expected) {
      if (!holds(expected, expected.slug)) return false;
      await collection.put({ ...expected, removed: true });
      return true;
    },
  };
}
