/**
 * Parsed workflow files, cached per path and kept while the file's (mtime, size) stay the same,
 * so a listing costs a `stat` per unchanged file instead of a read and a full validation.
 */

import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { readRegularFile, RefusedFileError } from '../shared/regular-file.js';
import { checkWorkflowFile, type WorkflowFileCheck } from '../workflows/index.js';

/** Larger files are refused unread: a workflow is a page of YAML, and the API caps bodies at 1 MiB. */
export const MAX_WORKFLOW_FILE_BYTES = 1024 * 1024;

interface Entry {
  readonly mtimeMs: number;
  readonly size: number;
  readonly check: WorkflowFileCheck;
}

export class WorkflowFileCache {
  private readonly entries = new Map<string, Entry>();
  /** How many files were read and validated (not answered from the cache); for tests and the bench. */
  parses = 0;

  /**
   * The check of the file at `path`, or `undefined` when it vanished (a race with a delete is
   * not an error). Files that cannot be read — or are refused unread: not a regular file (a FIFO,
   * a device), or over MAX_WORKFLOW_FILE_BYTES — become errors like invalid ones.
   */
  async check(path: string): Promise<WorkflowFileCheck | undefined> {
    let info;
    try {
      info = await stat(path);
    } catch (error) {
      this.entries.delete(path);
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      return { ok: false, errors: [`${path}: cannot read: ${(error as Error).message}`] };
    }
    const cached = this.entries.get(path);
    if (cached !== undefined && cached.mtimeMs === info.mtimeMs && cached.size === info.size) return cached.check;

    let check: WorkflowFileCheck;
    try {
      // Listing reads with svc's own scanner only: the bash parser's second reading (≈ 13 MiB once)
      // comes with `svc workflow validate`, the validate API, and before a bash node runs
      // (docs/decisions.md, "Parse as bash parses").
      check = checkWorkflowFile(await readRegularFile(path, MAX_WORKFLOW_FILE_BYTES), path);
      this.parses++;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      const reason = error instanceof RefusedFileError ? error.message : `cannot read: ${(error as Error).message}`;
      check = { ok: false, errors: [`${path}: ${reason}`] };
    }
    this.entries.set(path, { mtimeMs: info.mtimeMs, size: info.size, check });
    return check;
  }

  /** Forgets one file: after we write or delete it ourselves, never trust a same-size, same-ms stat. */
  forget(path: string): void {
    this.entries.delete(path);
  }

  /** Drops entries of files in `dir` that are no longer there, so the cache never outgrows the disk. */
  prune(dir: string, present: ReadonlySet<string>): void {
    for (const path of this.entries.keys()) {
      if (dirname(path) === dir && !present.has(path)) this.entries.delete(path);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
