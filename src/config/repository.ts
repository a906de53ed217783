/**
 * Where the assistant configuration is kept (`svc config`, `/api/config/assistants`), behind an
 * async repository so a database can take the file store's place (docs/scaling.md): one record,
 * read whole and replaced by compare-and-set, so servers sharing a database that patch it at once
 * lose neither patch (the service reads again and retries the one refused).
 */

import { isDeepStrictEqual } from 'node:util';
import type { Store } from '../store/index.js';
import type { AssistantConfig, AssistantName } from './schema.js';

/** The record as stored: the file store's `config` collection, key `assistants` (existing homes keep theirs). */
export interface StoredAssistants {
  readonly id: 'assistants';
  readonly defaultAssistant?: AssistantName;
  readonly assistants?: Readonly<Record<AssistantName, Partial<AssistantConfig>>>;
}

export const CONFIG_COLLECTION = 'config';
export const ASSISTANTS_KEY = 'assistants';

export interface AssistantsConfigRepository {
  /** The stored record; undefined while nothing was ever saved (the defaults apply). */
  get(): Promise<StoredAssistants | undefined>;
  /**
   * Stores `next` only while the stored record is still `expected` (undefined: none stored yet);
   * resolves to whether it did. A refused write means another writer came first: read again.
   */
  replaceIf(expected: StoredAssistants | undefined, next: StoredAssistants): Promise<boolean>;
}

export async function openAssistantsConfigRepository(store: Store): Promise<AssistantsConfigRepository> {
  const collection = await store.collection<StoredAssistants>(CONFIG_COLLECTION);
  return {
    get: async () => collection.get(ASSISTANTS_KEY),
    // Checked and set in one synchronous step: one process, one writer (the store's lock).
    async replaceIf(expected, next) {
      if (!isDeepStrictEqual(collection.get(ASSISTANTS_KEY), expected)) return false;
      await collection.put(next);
      return true;
    },
  };
}
