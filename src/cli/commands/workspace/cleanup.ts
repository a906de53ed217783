import { ApiResponseError } from '../../../client/index.js';
import { defineCommand } from '../../define-command.js';
import { UsageError } from '../../exit-codes.js';
import { printJson, printTable } from '../../output.js';
import { printEnvironments } from './_print.js';

/**
 * `svc workspace cleanup [--older-than 7d] [--merged [--force]]`: removes the worktrees and
 * branches of finished runs that ended before then, or whose branch is merged into the default
 * branch, and says which it kept and why (docs/decisions.md, "Clean-up by outcome").
 */
export default defineCommand({
  options: {
    olderThan: ['--older-than <age>', 'runs that ended longer ago than this: 30s, 90m, 12h, 7d, 2w (default 7d; with --merged, any age)'],
    merged: ['--merged', "only runs whose branch is merged into the workspace's default branch (or whose changes already are in it)"],
    force: ['--force', 'with --merged: remove branches with unmerged commits too'],
    workspace: ['--workspace <workspace>', 'only this workspace (name, id or id prefix)'],
  },
  run: async (cmd, _args, options) => {
    if (options.force && !options.merged) throw new UsageError('--force applies with --merged only (by age alone, unmerged branches go already)');
    const result = await cmd
      .client()
      .workspaces.cleanup({
        ...(options.olderThan ? { olderThan: options.olderThan } : {}),
        ...(options.merged ? { merged: true } : {}),
        ...(options.force ? { force: true } : {}),
        ...(options.workspace ? { workspaceId: options.workspace } : {}),
      })
      .catch((error: unknown) => {
        // The API checks the age (one rule for both front ends); a bad flag is still a usage error here.
        if (error instanceof ApiResponseError && error.error === 'invalid_request')
          throw new UsageError(`--older-than: ${error.issues[0]?.message ?? error.message}`);
        throw error;
      });
    if (cmd.globals.json) return printJson(cmd.io, result);
    if (result.removed.length === 0 && result.pool.length === 0) cmd.io.out('Nothing to clean up.\n');
    else if (result.removed.length === 0) cmd.io.out('No run worktree to remove.\n');
    else {
      cmd.io.out(`Removed ${result.removed.length} worktree(s):\n`);
      await printEnvironments(cmd, result.removed);
    }
    // Only what a choice of flags could change is worth a line: a run still going is no news.
    const kept = result.kept.filter((e) => e.reason === 'unmerged' || e.reason === 'check_failed');
    if (kept.length) {
      cmd.io.out(`Kept ${kept.length} worktree(s):\n`);
      await printTable(
        cmd.io,
        ['RUN', 'BRANCH', 'REASON'],
        kept.map((e) => [e.run_id, e.branch, e.message]),
      );
    }
    const waiting = result.kept.length - kept.length;
    if (waiting) cmd.io.out(`${waiting} other worktree(s) kept: their runs are not finished, or ended too recently (--json lists them).\n`);
    // The pools go whatever the rule: a clean-up gives the disk back, and a pool fills again once a run comes.
    if (result.pool.length) cmd.io.out(`Removed ${result.pool.length} prepared worktree(s) of the pool; refilled by the next run on the workspace.\n`);
    if (result.elsewhere.length)
      cmd.io.out(`${result.elsewhere.length} worktree(s) in other servers' homes: those servers were told to clean up the same way.\n`);
  },
});
