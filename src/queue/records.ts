/**
 * The landing queue's shapes (docs/contract.md, "Landing queue"), once: the zod schemas give the
 * TypeScript types and the API's response schemas.
 */

import * as z from 'zod';
import { REWORK_MODES } from '../workflows/index.js';

/**
 * An entry's states: `queued` waits its turn; `verifying` is being built on the target's tip and
 * verified; `landed` moved the target to the commit it tested; `needs_rework` conflicted or failed
 * verification and waits for a person (or a rework run); `paused` is the queue's head waiting for a
 * cause to go away (a dirty checkout of the target), resumed by itself.
 */
export const QUEUE_STATES = ['queued', 'verifying', 'landed', 'needs_rework', 'paused'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

/** The states of an entry still to land: the queue's work. */
export const OPEN_STATES: readonly QueueState[] = ['queued', 'verifying', 'paused'];

/** How the queue builds an entry's branch on the target's tip: a merge commit, or one squashed commit. */
export const QUEUE_STRATEGIES = ['merge', 'squash'] as const;
export type QueueStrategy = (typeof QUEUE_STRATEGIES)[number];

export const QueueEntrySchema = z.object({
  runId: z.string(),
  workspaceId: z.string(),
  target: z.string().describe('the branch the entry lands on'),
  position: z.number().int().describe('its place: entries of one queue land in ascending position'),
  state: z.enum(QUEUE_STATES),
  strategy: z.enum(QUEUE_STRATEGIES),
  reason: z.string().nullable().describe('why it needs rework or is paused'),
  files: z.array(z.string()).nullable().describe('needs_rework after a conflict: the conflicting files'),
  outputTail: z.string().nullable().describe("needs_rework after a failed verification: the tail of verify's output"),
  base: z.string().nullable().describe('the target commit its candidate was built on'),
  commit: z.string().nullable().describe('verifying: the candidate commit under test; landed: the commit the target moved to'),
  attempts: z.number().int().describe('how many times its candidate was built'),
  rework: z
    .object({ mode: z.enum(REWORK_MODES), max: z.number().int() })
    .describe("what happens when it needs rework: decided as it entered, from the run's workflow, else .svc/worktree.yaml"),
  reworks: z.number().int().describe('rework runs before this entry: 0 for a run queued by a person, 1 for the first rework run'),
  reworkOf: z.string().nullable().describe('the run whose entry this rework run takes the place of'),
  reworkRunId: z.string().nullable().describe('the rework run started for this entry'),
  awaitingRework: z.boolean().describe('its rework run is still to start or to finish; it then enters the queue at this place'),
  enteredAt: z.string(),
  updatedAt: z.string(),
  landedAt: z.string().nullable(),
});
export type QueueEntry = z.infer<typeof QueueEntrySchema>;

/** What an entry holds when it (re)starts at its place: waiting its turn, nothing built or decided yet. */
export const UNSTARTED = {
  state: 'queued',
  reason: null,
  files: null,
  outputTail: null,
  base: null,
  commit: null,
  attempts: 0,
} as const satisfies Partial<QueueEntry>;

export const QueueViewSchema = z.object({
  workspaceId: z.string(),
  entries: z.array(QueueEntrySchema).describe('in queue order: by target, then position'),
});
export type QueueView = z.infer<typeof QueueViewSchema>;
