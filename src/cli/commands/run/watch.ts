import { DASHBOARD_STREAM, type RunView, type SvcClient } from '../../../client/index.js';
import type { CommandContext } from '../../context.js';
import { defineCommand } from '../../define-command.js';
import { CliError, EXIT, UsageError } from '../../exit-codes.js';
import { formatSize } from '../../../shared/size.js';
import { printableLine } from '../../../shared/printable.js';
import { printJson, styler } from '../../output.js';
import { followRun, isSettled } from './_follow.js';
import { exitCodeForRun } from './_outcome.js';
import { RunPrinter } from './_printer.js';
import { showsToolCall, toolLine } from './_tools.js';
import { printConversationEvent } from '../conversation/_print.js';

/** Streams a conversation's messages and run events (or every run event) until interrupted; the client reconnects with Last-Event-ID. */
async function watchStream(cmd: CommandContext, client: SvcClient, stream: string, verbose: boolean): Promise<never> {
  const p = await styler(cmd.io);
  return new Promise<never>((_resolve, reject) => {
    void client.events
      .follow({
        stream,
        onEvent: (event, raw) => {
          if (cmd.globals.json) return cmd.io.out(`${raw}\n`);
          if (!('runId' in event)) return printConversationEvent(cmd, p, event, verbose);
          if ((event.type === 'node_output' || event.type === 'setup_output') && !verbose) return;
          if (event.type === 'agent_tool' && !showsToolCall(event.status, verbose)) return;
          // A running node's memory every few seconds: detail, like output.
          if (event.type === 'node_memory' && !verbose) return;
          const detail =
            event.type === 'node_output' || event.type === 'setup_output'
              ? event.text.replace(/\n$/, '')
              : event.type === 'agent_tool'
                ? `${event.nodeId} ${toolLine(p, event)}`
                : event.type === 'node_memory'
                  ? `${event.nodeId} ${formatSize(event.rssBytes)} (peak ${formatSize(event.peakRssBytes)})`
                  : // A reason or a message may quote GitHub (a pull request's `needs_human`): one clean line (shared/printable.ts).
                    printableLine(
                      [
                        'nodeId' in event ? event.nodeId : undefined,
                        'error' in event ? event.error : undefined,
                        'reason' in event ? event.reason : undefined,
                        'message' in event ? event.message : undefined,
                      ]
                        .filter(Boolean)
                        .join(' '),
                    );
          cmd.io.out(`${p.dim(event.at.slice(11, 19))} ${event.runId} ${event.type}${detail ? ` ${detail}` : ''}\n`);
        },
        // A server gone for good ends the watch.
        onLost: () => reject(new CliError(`Lost the connection to ${client.baseUrl}.`, EXIT.unreachable)),
      })
      .catch(reject);
  });
}

/** `svc watch [run] [--conversation id | --all] [--exit-status]`: needs a server (nothing runs without one). */
export default defineCommand({
  args: [['[run]', 'run id or prefix']],
  options: {
    conversation: ['-c, --conversation <id>', "this conversation's messages and the events of its runs"],
    all: ['-a, --all', 'every run event (the dashboard stream)'],
    exitStatus: ['--exit-status', "exit with the run's outcome (0 completed, 1 failed, 3 cancelled, 4 paused, 6 completed with tool calls denied)"],
    verbose: ['--verbose', "stream node output and agents' tool calls"],
  },
  run: async (cmd, [runId], options) => {
    const client = cmd.client('server');
    if (options.conversation || options.all) {
      if (runId) throw new UsageError('give a run id, or --conversation / --all, not both');
      return watchStream(cmd, client, options.conversation ?? DASHBOARD_STREAM, Boolean(options.verbose));
    }
    if (!runId) throw new UsageError('give a run id to watch, or --conversation <id>, or --all');
    const current = await client.runs.get(runId);
    const printer = await RunPrinter.create(cmd.io, { verbose: Boolean(options.verbose), quiet: Boolean(cmd.globals.json) });
    let run: RunView = current;
    try {
      if (!isSettled(current)) run = await followRun(client, current.id, (event) => printer.handle(event));
    } finally {
      printer.close();
    }
    if (cmd.globals.json) printJson(cmd.io, run);
    else printer.finish(run);
    // Like `gh run watch`: the outcome is the exit code only when asked for.
    return options.exitStatus ? exitCodeForRun(run) : 0;
  },
});
