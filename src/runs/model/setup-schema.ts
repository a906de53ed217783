import * as z from 'zod';

/** How a run's worktree was prepared (docs/decisions.md, "Setup cache and pool"). */
export const SETUP_SOURCES = ['pool', 'cache', 'setup'] as const;
export type SetupSource = (typeof SETUP_SOURCES)[number];

/** The worktree setup of a run (docs/decisions.md, "Worktree setup and $SVC_PORT"): `.svc/worktree.yaml` done once in its new worktree. */
export const RunSetupSchema = z.object({
  status: z.enum(['completed', 'failed', 'cancelled']),
  output: z.string().describe("what the setup printed (copies, then the script's stdout and stderr), its last 64 KiB"),
  outputTruncated: z.boolean().optional().describe('true when `output` holds only the last 64 KiB'),
  durationMs: z.number(),
  source: z
    .enum(SETUP_SOURCES)
    .optional()
    .describe(
      "how the worktree was prepared: `pool` (taken from the workspace's pool of worktrees prepared ahead: the script did not run for this run), `cache` (restored from the setup cache, the script did not run) or `setup` (the script ran)",
    ),
  cacheKey: z.string().optional().describe("the setup cache entry's key (`svc workspace cache`), when `.svc/worktree.yaml` has `cache:`"),
  copied: z.array(z.string()).describe('the `copy:` files copied into the worktree (never committed)'),
  error: z.string().optional().describe('why it failed'),
  sandbox: z
    .object({ network: z.array(z.string()), read: z.array(z.string()), write: z.array(z.string()) })
    .optional()
    .describe("`.svc/worktree.yaml`'s `sandbox:`, read once here: what widens every sandboxed node of the run"),
});
