export type { AppendLog, Collection, CollectionLayout, Identified, PutOptions, Store } from './types.js';
export { openFileStore, type FileStore, type FileStoreOptions } from './file-store.js';
export { acquireLock, readLock, lockPathOf, StoreLockedError, type LockInfo, type StoreLock } from './lock.js';
export { homeIdentity } from './home-id.js';
