/**
 * The store interface the rest of svc uses. It is deliberately small: keyed collections held in
 * memory (reads are synchronous, writes durable when their promise resolves) and append-only logs
 * for what grows without bound (run events, messages).
 */
export interface Identified {
  id: string;
}

export interface PutOptions {
  /** fsync before resolving (default true). */
  sync?: boolean;
}

export interface Collection<T extends Identified> {
  all(): T[];
  get(id: string): T | undefined;
  find(predicate: (item: T) => boolean): T | undefined;
  filter(predicate: (item: T) => boolean): T[];
  /**
   * Inserts or replaces, atomically. Durable against a power loss when resolved, unless
   * `{ sync: false }`: then only against a crash of this process (the page cache holds it) until
   * a later synced write of the same record — for progress that is cheap to redo (docs/decisions.md, "Engine overhead").
   */
  put(item: T, options?: PutOptions): Promise<void>;
  /** Resolves to whether something was removed. */
  delete(id: string): Promise<boolean>;
  readonly size: number;
}

export interface AppendLog<T> {
  append(key: string, entry: T): Promise<void>;
  /** Every entry in order; a torn last line (a crash mid-write) is skipped. */
  read(key: string): Promise<T[]>;
  remove(key: string): Promise<void>;
  /** The keys directly under `prefix` (`<prefix>/<name>`) that hold entries, sorted; none: []. */
  keys(prefix: string): Promise<string[]>;
}

/**
 * How a collection is laid out on disk:
 * - `single`: one lowdb file; every write rewrites it, so only for small, bounded collections.
 * - `per-record`: one file per record, so a write costs the same however many records exist.
 */
export type CollectionLayout = 'single' | 'per-record';

export interface Store {
  readonly home: string;
  /** Opens (loading on first use) a named collection. */
  collection<T extends Identified>(name: string, layout?: CollectionLayout): Promise<Collection<T>>;
  log<T>(name: string): AppendLog<T>;
  /** A folder for a record's files (artifacts), created on demand. */
  dataDir(...segments: string[]): string;
  /** Proves the store can be read and written (for `/health/db`). */
  check(): Promise<void>;
  /** Waits for every pending write. */
  flush(): Promise<void>;
  close(): Promise<void>;
}
