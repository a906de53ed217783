/**
 * A workflow's keys about what becomes of its runs' branches: the landing queue's rework runs
 * (docs/contract.md, "Landing queue") and a followed pull request's reactions (docs/decisions.md,
 * "Pull request reactions"). Read from a run's definition as written, by queue/ and pulls/.
 */

import * as z from 'zod';

/** `rework:`: `agent` starts a rework run for a queued run that cannot land; `person` (the default) waits. */
export const REWORK_MODES = ['agent', 'person'] as const;
export type ReworkMode = (typeof REWORK_MODES)[number];

/** The keys, given the one rule for a workflow's name (schema.ts `WorkflowNameSchema`). */
export const rawLandingKeys = (workflowName: z.ZodString) => ({
  /** The landing queue's rework runs for its runs: whether (`agent`), and how many. */
  rework: z.enum(REWORK_MODES).optional(),
  max_rework: z.number().int().min(0).max(10).optional(),
  /** The workflows a failed check and a review asking for changes start (defaults `fix-ci`, `address-review`), and how many reactions a pull request gets. */
  on_ci_failure: workflowName.optional(),
  on_review: workflowName.optional(),
  max_fix_cycles: z.number().int().min(0).max(20).optional(),
});
