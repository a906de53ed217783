/**
 * The conflict forecast's answer (docs/contract.md, "Workspaces"; docs/decisions.md, "Conflict
 * forecast"): the shape once, in zod, giving the TypeScript types and the route's response schema.
 */

import * as z from 'zod';
import { RUN_STATUSES } from '../runs/index.js';
import { FORECAST_FILES_LIMIT } from './conflict-pairs.js';

/** The name an entry gives the workspace's target branch as its other side. */
export const TARGET_SIDE = 'target';

export const ConflictEntrySchema = z.object({
  sides: z
    .tuple([z.string(), z.string()])
    .describe(`the two sides: a run id, then another run id or "${TARGET_SIDE}" (the workspace's default branch, named in \`target\`)`),
  conflict: z.boolean().describe('true: git cannot merge the two; false: they merge cleanly but change the same files'),
  files: z.array(z.string()).describe(`the conflicting files, or (conflict false) the files both change; at most ${FORECAST_FILES_LIMIT}`),
  truncated: z.boolean().describe(`more files than listed (over ${FORECAST_FILES_LIMIT}), or a side changed so many files that its list was cut`),
});
export type ConflictEntry = z.infer<typeof ConflictEntrySchema>;

export const ForecastRunSchema = z.object({
  runId: z.string(),
  status: z.enum(RUN_STATUSES),
  branch: z.string(),
  head: z.string().describe("the branch's commit the forecast was computed on"),
});

export const SKIP_REASONS = ['branch_gone', 'elsewhere', 'unrelated', 'unreadable'] as const;

export const WorkspaceConflictsSchema = z.object({
  workspaceId: z.string(),
  target: z.string().describe("the branch runs land in: the workspace's default branch (empty for a directory that is no git repository)"),
  targetCommit: z.string().nullable().describe('where the target pointed when the forecast was computed; null when it does not exist'),
  runs: z.array(ForecastRunSchema).describe("the unlanded run branches compared: each run's branch with changes its target does not have yet"),
  entries: z.array(ConflictEntrySchema).describe('each pair of sides that conflict or change the same files; pairs that do neither are left out'),
  skipped: z
    .array(z.object({ runId: z.string(), reason: z.enum(SKIP_REASONS), message: z.string() }))
    .describe(
      "runs with a worktree not compared: branch_gone (deleted meanwhile), elsewhere (in another server's home), unrelated (no history in common with the target), unreadable (git failed)",
    ),
});
export type WorkspaceConflicts = z.infer<typeof WorkspaceConflictsSchema>;
