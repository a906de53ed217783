import { resolve } from 'node:path';
import type { RunView } from '../../engine/run-view.js';
import { toRunView } from '../../engine/run-view.js';
import { ServerUnreachableError } from '../api-client.js';
import { withStore, type CommandContext } from '../command-context.js';
import { CliError, EXIT } from '../exit-codes.js';
import { printJson } from '../output.js';
import type { CommandRun } from '../program.js';
import { followRunOverSse } from '../runs/follow.js';
import { exitCodeForStatus } from '../runs/outcome.js';
import { RunPrinter } from '../runs/printer.js';

export interface RunOptions {
  conversation?: string;
  cwd?: string;
  detach?: boolean;
  wait?: boolean;
  verbose?: boolean;
}

interface StartBody {
  message: string;
  conversationId?: string;
  cwd: string;
  trigger: 'cli';
}

/** Follows a started run to its end (or pause) and maps the outcome to an exit code. */
async function followOnline(cmd: CommandContext, runId: string, options: RunOptions, after: number): Promise<number> {
  const printer = await RunPrinter.create(cmd.io, { verbose: Boolean(options.verbose), quiet: Boolean(cmd.globals.json || options.wait) });
  let run: RunView;
  try {
    run = await followRunOverSse(cmd, runId, (event) => printer.handle(event), after);
  } finally {
    printer.close();
  }
  report(cmd, printer, run);
  return exitCodeForStatus(run.status);
}

function report(cmd: CommandContext, printer: RunPrinter, run: RunView): void {
  if (cmd.globals.json) printJson(cmd.io, run);
  else printer.finish(run);
}

/** No server: the run executes in this process, on the store, under its lock (CONTRACT §13). */
async function runInForeground(cmd: CommandContext, workflow: string, body: StartBody, options: RunOptions): Promise<number> {
  if (options.detach) throw new CliError('--detach needs a running server; start one with `svc serve`.', EXIT.unreachable);
  return withStore(cmd, true, async (ctx) => {
    const printer = await RunPrinter.create(cmd.io, { verbose: Boolean(options.verbose), quiet: Boolean(cmd.globals.json || options.wait) });
    let runId: string | undefined;
    const early: Parameters<RunPrinter['handle']>[0][] = [];
    const unsubscribe = ctx.bus.subscribe((event) => {
      if (runId === undefined) early.push(event);
      else if (event.runId === runId) printer.handle(event);
    });
    // Ctrl-C (or SIGTERM/SIGHUP) cancels the run: its processes get SIGTERM, then SIGKILL after 5 s.
    // Later signals only say so — exiting early would orphan the processes and leave the store lock.
    let interrupted = false;
    const cancel = (id: string) => void ctx.engine.cancel(id).catch(() => {});
    const interrupt = () => {
      if (interrupted) {
        cmd.io.err('svc: still stopping the run (its processes get SIGKILL after 5 s)…\n');
        return;
      }
      interrupted = true;
      cmd.io.err('\nsvc: cancelling the run…\n');
      if (runId) cancel(runId);
    };
    const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    for (const signal of signals) process.on(signal, interrupt);
    try {
      const started = await ctx.engine.start({ workflow, message: body.message, conversationId: body.conversationId ?? null, cwd: body.cwd, trigger: 'cli' });
      runId = started.id;
      if (interrupted) cancel(runId);
      for (const event of early.splice(0)) if (event.runId === runId) printer.handle(event);
      const settled = await ctx.engine.waitUntilSettled(runId);
      const view = toRunView(settled);
      printer.close();
      report(cmd, printer, view);
      return exitCodeForStatus(view.status);
    } finally {
      for (const signal of signals) process.off(signal, interrupt);
      unsubscribe();
      printer.close();
    }
  });
}

/** Starts a run through the server, or in the foreground when none runs, then follows it. */
export async function startAndFollow(cmd: CommandContext, workflow: string, body: StartBody, options: RunOptions, after = 0): Promise<number> {
  let started: { runId: string; status: string };
  try {
    started = await cmd.client.request('POST', `/api/workflows/${encodeURIComponent(workflow)}/run`, body);
  } catch (error) {
    if (error instanceof ServerUnreachableError && !cmd.target.explicit && !cmd.target.running) return runInForeground(cmd, workflow, body, options);
    throw error;
  }
  if (options.detach) {
    if (cmd.globals.json) printJson(cmd.io, started);
    else cmd.io.out(`${started.runId}\n`);
    return EXIT.ok;
  }
  return followOnline(cmd, started.runId, options, after);
}

/** `svc run <workflow> [message...]` (also `svc workflow run`). */
const run: CommandRun = async (cmd, [workflow, ...words], options) => {
  const opts = options as RunOptions;
  if (opts.detach && opts.wait) throw new CliError('--detach and --wait cannot be combined.', EXIT.usage);
  const body: StartBody = {
    message: words.join(' '),
    cwd: resolve(opts.cwd ?? process.cwd()),
    trigger: 'cli',
    ...(opts.conversation ? { conversationId: opts.conversation } : {}),
  };
  return startAndFollow(cmd, workflow!, body, opts);
};

export default run;
