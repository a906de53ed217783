/**
 * How the landing queue changes an entry: by compare-and-set on the entry as read, so that of two
 * processes that both believe they hold a queue (one frozen past its lease) only one goes on.
 */

import type { QueueEntry } from './records.js';
import type { QueueRepository } from './repository.js';

/** What processing an entry came to: it is done (landed or needs rework), it goes again (the target moved), or the queue waits. */
export type Step = 'done' | 'again' | 'wait';

/** Another process changed the entry since it was read (it holds the queue now): this one stops. */
export class EntryChanged extends Error {}

/** The entry with `patch`, saved only while it is still as read; EntryChanged else. */
export async function changeEntry(repository: QueueRepository, entry: QueueEntry, patch: Partial<QueueEntry>): Promise<QueueEntry> {
  const next = { ...entry, ...patch, updatedAt: new Date().toISOString() };
  if (!(await repository.replaceIf(entry, next))) throw new EntryChanged(`queue entry of ${entry.runId} changed meanwhile`);
  return next;
}
