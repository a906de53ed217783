import { afterEach, beforeEach } from 'vitest';
import type { ContractStore, ContractStoreFactory } from './store.js';

/** A fresh store per test, closed after it; `reopen()` swaps in the reopened one. */
export function useContractStore(factory: ContractStoreFactory): { current(): ContractStore; reopen(): Promise<ContractStore> } {
  let store: ContractStore | undefined;
  beforeEach(async () => {
    store = await factory();
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });
  const current = () => {
    if (!store) throw new Error('no store outside a test');
    return store;
  };
  return {
    current,
    async reopen() {
      store = await current().reopen();
      return store;
    },
  };
}
