import { defineCommand, RUN_ARG } from '../../define-command.js';
import { UsageError } from '../../exit-codes.js';
import { printJson } from '../../output.js';

/**
 * `svc runs merge <run> [--into b] [--squash | --ff-only] [-m msg]`: the run's branch merged into
 * a branch of its workspace (docs/decisions.md, "Landing a run: merge, push, pull request"). A branch
 * the user landed already (merged, squashed or cherry-picked by hand) is "already landed", exit 0,
 * and recorded on the run. A refusal (a dirty checkout, a conflict, no fast-forward, a run still
 * running) exits 1 with the reason, nothing changed.
 */
export default defineCommand({
  args: [RUN_ARG],
  options: {
    into: ['--into <branch>', "the branch to merge into (default: the workspace's default branch)"],
    squash: ['--squash', 'one commit on top of the branch instead of a merge commit'],
    ffOnly: ['--ff-only', "only fast-forward the branch to the run's head"],
    message: ['-m, --message <text>', 'the commit message'],
  },
  run: async (cmd, [id], options) => {
    if (options.squash && options.ffOnly) throw new UsageError('--squash and --ff-only exclude each other.');
    const strategy = options.squash ? 'squash' : options.ffOnly ? 'fast-forward' : 'merge';
    const merged = await cmd.client().runs.merge(id, {
      strategy,
      ...(options.into ? { into: options.into } : {}),
      ...(options.message ? { message: options.message } : {}),
    });
    if (cmd.globals.json) return printJson(cmd.io, merged);
    // Landed by hand before: the outcome asked for, so exit 0 (issue 32), and the run now says so.
    if (merged.alreadyLanded) cmd.io.out(`Already landed: ${merged.into} (${merged.commit}) has the run's changes; recorded on the run.\n`);
    else cmd.io.out(`Merged into ${merged.into} (${merged.strategy}): ${merged.commit}\n`);
  },
});
