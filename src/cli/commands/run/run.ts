import { resolve } from 'node:path';
import type { RunView, StartRunInput, SvcClient } from '../../../client/index.js';
import type { CommandContext } from '../../context.js';
import { defineCommand } from '../../define-command.js';
import { CliError, EXIT } from '../../exit-codes.js';
import { printJson } from '../../output.js';
import { followRun, waitsForServe, waitsForServer } from './_follow.js';
import { exitCodeForRun } from './_outcome.js';
import { RunPrinter } from './_printer.js';
import { MAX_COST_OPTION, maxCostOf } from './_max-cost.js';
import { PERMISSIONS, type Permissions } from '../../../client/types.js';
import { printPlan } from './_plan.js';
import { placeLine } from './_place.js';

export interface FollowOptions {
  detach?: boolean;
  wait?: boolean;
  verbose?: boolean;
  /** Say first where the run went (`svc run`): a workspace's worktree, or in place. */
  sayPlace?: boolean;
}

/**
 * With no server the run executes in this process, so Ctrl-C (or SIGTERM/SIGHUP) cancels it:
 * its processes get SIGTERM, then SIGKILL after 5 s. Later signals only say so — exiting early
 * would orphan the processes and leave the store lock. Returns the function that removes the handlers.
 */
function cancelOnSignal(cmd: CommandContext, client: SvcClient, runId: () => string | undefined): { cancelled(id: string): void; remove(): void } {
  let interrupted = false;
  const cancel = (id: string) => void client.runs.cancel(id).catch(() => {});
  const interrupt = () => {
    if (interrupted) {
      cmd.io.err('svc: still stopping the run (its processes get SIGKILL after 5 s)…\n');
      return;
    }
    interrupted = true;
    cmd.io.err('\nsvc: cancelling the run…\n');
    const id = runId();
    if (id) cancel(id);
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, interrupt);
  return {
    // A signal that came while the run was being started cancels it once it exists.
    cancelled: (id) => interrupted && cancel(id),
    remove: () => {
      for (const signal of signals) process.off(signal, interrupt);
    },
  };
}

/**
 * Starts a run and follows it to its end (or pause), mapping the outcome to an exit code. The
 * same steps whether a server carries the run or this process does (docs/contract.md, "Without a server").
 */
/** `--permissions edit`: one of the levels, else a usage error before anything is asked of the server. */
function permissionsOf(value: string | undefined): { permissions?: Permissions } {
  if (value === undefined) return {};
  const level = PERMISSIONS.find((p) => p === value);
  if (!level) throw new CliError(`--permissions is one of ${PERMISSIONS.join(', ')}, got '${value}'.`, EXIT.usage);
  return { permissions: level };
}

export async function startAndFollow(cmd: CommandContext, workflow: string, input: StartRunInput, options: FollowOptions, after = 0): Promise<number> {
  const client = cmd.client();
  const host = await client.runHost();
  const inProcess = host === 'process';
  // Detached, a run in this process would die with it.
  if (options.detach && inProcess) throw new CliError('--detach needs a running server; start one with `svc serve`.', EXIT.unreachable);
  let runId: string | undefined;
  const signals = inProcess ? cancelOnSignal(cmd, client, () => runId) : undefined;
  const printer = await RunPrinter.create(cmd.io, { verbose: Boolean(options.verbose), quiet: Boolean(cmd.globals.json || options.wait) });
  try {
    const started = await client.runs.start(workflow, input);
    runId = started.runId;
    signals?.cancelled(runId);
    // The first line of the progress says where the run edits files; --json, --wait and --detach print
    // only their document, outcome or id (the place is in the JSON documents: workspaceId, cwd, branch).
    if (options.sayPlace && !cmd.globals.json && !options.wait && !options.detach) {
      const workspaceName = started.workspaceId
        ? await client.workspaces.get(started.workspaceId).then(
            (w) => w.name,
            () => undefined,
          )
        : undefined;
      cmd.io.out(
        `${placeLine(workflow, started, { inPlace: Boolean(input.inPlace), atLaunch: host === 'database', ...(workspaceName ? { workspaceName } : {}) })}\n`,
      );
    }
    if (host === 'database') cmd.io.err(waitsForServer(runId, Boolean(options.detach)));
    if (options.detach) {
      if (cmd.globals.json) printJson(cmd.io, started);
      else cmd.io.out(`${started.runId}\n`);
      return EXIT.ok;
    }
    const run: RunView = await followRun(client, runId, (event) => printer.handle(event), after, { untilWaiting: inProcess });
    if (run.status === 'waiting') cmd.io.err(waitsForServe(run));
    printer.close();
    if (cmd.globals.json) printJson(cmd.io, run);
    else printer.finish(run);
    return exitCodeForRun(run);
  } finally {
    printer.close();
    signals?.remove();
  }
}

/** `svc run <workflow> [message...]` (also `svc workflow run`). */
export default defineCommand({
  args: [
    ['<workflow>', 'workflow name'],
    ['[message...]', 'the task ($ARGUMENTS)'],
  ],
  options: {
    conversation: ['-c, --conversation <id>', 'link the run to a conversation (continues a resumable run of it)'],
    cwd: ['--cwd <dir>', 'working directory of the run; project workflows are found under it'],
    workspace: [
      '--workspace <workspace>',
      "run in this workspace (name, id or id prefix), in a git worktree of its own (svc/<run id>), with the workspace's own workflow",
    ],
    inPlace: [
      '--in-place',
      "run in the directory itself, no worktree: by default a run started inside a registered workspace's checkout goes to a worktree of it",
    ],
    from: ['--from <run>', "a follow-on run: branch from that run's head, with its changes (id or prefix)"],
    maxCost: MAX_COST_OPTION,
    permissions: ['--permissions <level>', "what the run's agents may do at most: read, edit or full (lowers the workflow's, never raises it)"],
    detach: ['-d, --detach', 'print the run id and return at once'],
    wait: ['-w, --wait', 'wait for the end without streaming progress (for scripts)'],
    verbose: ['--verbose', "stream node output and agents' tool calls"],
    dryRun: ['--dry-run', 'print the execution plan (steps, parallel nodes, conditions, each agent and its permissions) and run nothing'],
  },
  run: async (cmd, [workflow, words], options) => {
    if (options.detach && options.wait) throw new CliError('--detach and --wait cannot be combined.', EXIT.usage);
    if (options.inPlace && options.workspace)
      throw new CliError('--in-place and --workspace cannot be combined: a run on a workspace has a worktree of its own.', EXIT.usage);
    if (options.dryRun) return printPlan(cmd, workflow, resolve(options.cwd ?? process.cwd()), options.workspace);
    const input: StartRunInput = {
      message: words.join(' '),
      cwd: resolve(options.cwd ?? process.cwd()),
      trigger: 'cli',
      ...(options.conversation ? { conversationId: options.conversation } : {}),
      ...(options.workspace ? { workspaceId: options.workspace } : {}),
      ...(options.inPlace ? { inPlace: true } : {}),
      ...(options.from ? { fromRunId: options.from } : {}),
      ...maxCostOf(options.maxCost),
      ...permissionsOf(options.permissions),
    };
    return startAndFollow(cmd, workflow, input, { ...options, sayPlace: true });
  },
});
