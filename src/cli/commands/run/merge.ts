import { defineCommand, RUN_ARG } from '../../define-command.js';
import { UsageError } from '../../exit-codes.js';
import { printJson } from '../../output.js';

/**
 * `svc runs merge <run> [--into b] [--squash | --ff-only] [-m msg] [--queue]`: the run's branch merged into
 * a branch of its workspace (docs/decisions.md, "Landing a run: merge, push, pull request"). A branch
 * the user landed already (merged, squashed or cherry-picked by hand) is "already landed", exit 0,
 * and recorded on the run. A refusal (a dirty checkout, a conflict, no fast-forward, a run still
 * running) exits 1 with the reason, nothing changed. `--queue`: the run enters its workspace's landing
 * queue instead (docs/contract.md, "Landing queue"), exit 0 once it is in.
 */
export default defineCommand({
  args: [RUN_ARG],
  options: {
    into: ['--into <branch>', "the branch to merge into (default: the workspace's default branch)"],
    squash: ['--squash', 'one commit on top of the branch instead of a merge commit'],
    ffOnly: ['--ff-only', "only fast-forward the branch to the run's head"],
    message: ['-m, --message <text>', 'the commit message'],
    queue: ['--queue', "enter the workspace's landing queue instead: it lands once verified, in order (svc queue <workspace>)"],
  },
  run: async (cmd, [id], options) => {
    if (options.squash && options.ffOnly) throw new UsageError('--squash and --ff-only exclude each other.');
    if (options.queue) {
      if (options.ffOnly) throw new UsageError('--queue builds the run on the branch as it is then: a merge or --squash, not --ff-only.');
      if (options.message) throw new UsageError("--queue writes its own message (the run's, naming it once); leave out -m.");
      const { entry } = await cmd.client().runs.enqueue(id, { strategy: options.squash ? 'squash' : 'merge', ...(options.into ? { into: options.into } : {}) });
      if (cmd.globals.json) return printJson(cmd.io, { queued: true, entry });
      cmd.io.out(`Queued for ${entry.target} (place ${entry.position}); svc queue ${entry.workspaceId} shows it.\n`);
      return;
    }
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
