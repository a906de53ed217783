/**
 * `.svc/worktree.yaml` (docs/decisions.md, "Worktree setup and $SVC_PORT"): how a repository
 * prepares each new worktree of a run — `setup:`, a bash script run once before the first node, and
 * `copy:`, untracked files brought over from the workspace's checkout, `cache:`, what of the setup's
 * output is kept and reused while its key files are unchanged (setup-cache.ts), `pool:`, how many
 * worktrees are kept prepared ahead at the default branch's tip (worktree-pool.ts), and `sandbox:`, what widens
 * the sandbox of the run's sandboxed nodes (read here once, before any node could change the
 * file: docs/decisions.md, "Bash nodes in a sandbox"), and `verify:`, the script the landing queue
 * runs on the commit it would land (docs/decisions.md, "Landing queue"). Read from the new worktree,
 * at the run's base commit, as anything in a repository: hostile. Only a regular file inside the
 * worktree (not a symlink), at most 64 KiB, checked against the schema with `file:line:col` errors.
 */

import { lstat, realpath } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import * as z from 'zod';
import { readRegularFile } from '../shared/regular-file.js';
import { RawSandboxSchema, REWORK_MODES, validateYamlWith } from '../workflows/index.js';
import { runGit } from './git.js';
import { DURATION_HINT, parseDuration } from '../shared/duration.js';
import { isInside, type WorktreeGit } from './worktrees.js';

export const WORKTREE_CONFIG_FILE = '.svc/worktree.yaml';

const MAX_CONFIG_BYTES = 64 * 1024;

/** The most worktrees a pool keeps ready: each is a whole checkout and its setup's output on disk. */
export const MAX_POOL = 8;

/** A path relative to the repository's top, never leaving it. */
const CopyPathSchema = z
  .string()
  .min(1)
  .max(1024)
  .refine((path) => !isAbsolute(path), 'must be relative to the repository, not absolute')
  .refine((path) => !path.split(/[\\/]/).includes('..'), "must stay inside the repository (no '..')")
  .refine((path) => !path.includes('\0'), 'must not contain a NUL character');

/**
 * A cache path: a folder or file the setup makes inside the worktree. Never the worktree itself
 * (`.`), git's own `.git` or svc's `.svc`: restoring replaces what is at the path, and those hold the
 * worktree's identity and the repository's configuration.
 */
const segments = (path: string) => path.split(/[\\/]/).filter(Boolean);
const CachePathSchema = CopyPathSchema.refine(
  (path) => segments(path).length > 0 && !segments(path).includes('.'),
  "must name a path inside the repository, not '.'",
).refine((path) => !segments(path).some((part) => part === '.git' || part === '.svc'), 'must not be or go through .git or .svc');

export const WorktreeConfigSchema = z.strictObject({
  setup: z.string().min(1).max(MAX_CONFIG_BYTES).optional().describe('a bash script run once in each new worktree, before the first node'),
  copy: z.array(CopyPathSchema).max(200).optional().describe("untracked files copied from the workspace's checkout into each new worktree"),
  cache: z
    .strictObject({
      key: z
        .array(CopyPathSchema)
        .min(1)
        .max(50)
        .describe('files (globs, such as **/package-lock.json) whose content decides whether what setup made can be reused'),
      paths: z.array(CachePathSchema).min(1).max(50).describe('what setup makes that can be reused, such as node_modules'),
    })
    .optional()
    .describe('the setup cache: setup runs only when the key files changed (docs/decisions.md, "Setup cache and pool")'),
  pool: z
    .number()
    .int()
    .min(0)
    .max(MAX_POOL)
    .optional()
    .describe(
      `worktrees kept prepared ahead (setup done) at the default branch's tip, taken by new runs at once (0–${MAX_POOL}; docs/decisions.md, "Setup cache and pool")`,
    ),
  verify: z
    .string()
    .min(1)
    .max(MAX_CONFIG_BYTES)
    .optional()
    .describe('a bash script the landing queue runs on the exact commit it would land; only a passing one lands (docs/contract.md, "Landing queue")'),
  verify_timeout: z
    .union([z.number(), z.string()])
    .refine((value) => (parseDuration(value) ?? 0) > 0, `verify_timeout must be a duration of more than 0: ${DURATION_HINT}`)
    .optional()
    .describe("how long `verify:` may run before it is stopped and the entry needs rework (default: a bash node's, 10m)"),
  queue: z
    .strictObject({
      parallel: z
        .number()
        .int()
        .min(1)
        .max(8)
        .optional()
        .describe("how many of the queue's entries are verified at once, each on the ones ahead of it (default 1)"),
    })
    .optional()
    .describe('the landing queue (docs/decisions.md, "Landing queue"): the target\'s, as `verify:`'),
  rework: z
    .enum(REWORK_MODES)
    .optional()
    .describe("agent: the landing queue hands an entry that conflicts or fails verification to a rework run (a run's workflow saying `rework:` wins)"),
  max_rework: z.number().int().min(0).max(10).optional().describe('how many rework runs one queued run gets before a person is needed (default 2)'),
  sandbox: RawSandboxSchema.optional().describe('what widens the sandbox of every sandboxed node of the repository\'s runs (docs/workflows.md, "Sandbox")'),
});

export type WorktreeConfig = z.infer<typeof WorktreeConfigSchema>;

/** A worktree.yaml that cannot be used: its problems, one `file:line:col: …` line each. */
export class WorktreeConfigError extends Error {
  constructor(readonly errors: string[]) {
    super(errors.join('; '));
    this.name = 'WorktreeConfigError';
  }
}

/** The worktree's `.svc/worktree.yaml`, checked; null when there is none. */
export async function readWorktreeConfig(worktree: string): Promise<WorktreeConfig | null> {
  const path = join(worktree, WORKTREE_CONFIG_FILE);
  const info = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
    throw error;
  });
  if (!info) return null;
  // A symlink could name any file of the machine (its lines would come back in error messages).
  if (info.isSymbolicLink() || !isInside(await realpath(path), await realpath(worktree))) {
    throw new WorktreeConfigError([`${WORKTREE_CONFIG_FILE}: must be a regular file in the repository, not a symlink`]);
  }
  let text: string;
  try {
    text = await readRegularFile(path, MAX_CONFIG_BYTES);
  } catch (error) {
    throw new WorktreeConfigError([`${WORKTREE_CONFIG_FILE}: ${(error as Error).message}`]);
  }
  const checked = validateYamlWith(WorktreeConfigSchema.nullable(), text, WORKTREE_CONFIG_FILE);
  if (!checked.ok) throw new WorktreeConfigError(checked.errors);
  // An empty file is no configuration.
  return checked.value ?? null;
}

/**
 * The `.svc/worktree.yaml` of `commit` in `repository`, read from git's objects (no checkout),
 * checked as `readWorktreeConfig` checks a worktree's: null when the commit has none. A symlink
 * there is refused, as is a file over 64 KiB.
 */
export async function readWorktreeConfigAt(repository: string, commit: string, git: WorktreeGit): Promise<WorktreeConfig | null> {
  const options = { ...git, cwd: repository };
  const listed = (await runGit(['ls-tree', '-z', commit, '--', WORKTREE_CONFIG_FILE], options)).split('\0').find(Boolean);
  if (!listed) return null;
  const [mode, type, blob] = listed.split('\t')[0]!.split(' ');
  if (type !== 'blob' || mode === '120000') throw new WorktreeConfigError([`${WORKTREE_CONFIG_FILE}: must be a regular file in the repository, not a symlink`]);
  const size = Number((await runGit(['cat-file', '-s', blob!], options)).trim());
  if (size > MAX_CONFIG_BYTES) throw new WorktreeConfigError([`${WORKTREE_CONFIG_FILE}: larger than ${MAX_CONFIG_BYTES / 1024} KiB`]);
  const text = await runGit(['cat-file', 'blob', blob!], options);
  const checked = validateYamlWith(WorktreeConfigSchema.nullable(), text, WORKTREE_CONFIG_FILE);
  if (!checked.ok) throw new WorktreeConfigError(checked.errors);
  return checked.value ?? null;
}
