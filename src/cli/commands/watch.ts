import type { StreamEvent } from '../../events/bus.js';
import type { RunView } from '../../engine/run-view.js';
import { CliError, EXIT, UsageError } from '../exit-codes.js';
import { printJson, styler } from '../output.js';
import type { CommandRun } from '../program.js';
import { followRunOverSse } from '../runs/follow.js';
import { exitCodeForStatus } from '../runs/outcome.js';
import { RunPrinter } from '../runs/printer.js';

interface WatchOptions {
  conversation?: string;
  all?: boolean;
  exitStatus?: boolean;
  verbose?: boolean;
}

/** Give up on a server that stays unreachable this long. */
const RECONNECT_GIVE_UP_MS = 30_000;

const SETTLED = new Set(['completed', 'failed', 'cancelled', 'abandoned', 'paused']);

/** Streams a conversation's (or every) run events until interrupted, reconnecting with Last-Event-ID. */
async function watchStream(cmd: Parameters<CommandRun>[0], stream: string, verbose: boolean): Promise<never> {
  const { EventSource } = await import('eventsource');
  const p = await styler(cmd.io);
  const source = new EventSource(new URL(`/api/stream/${encodeURIComponent(stream)}`, cmd.client.baseUrl).toString());
  source.onmessage = (message) => {
    const event = JSON.parse(message.data) as StreamEvent;
    if (cmd.globals.json) return cmd.io.out(`${message.data}\n`);
    if (event.type === 'node_output' && !verbose) return;
    const detail =
      event.type === 'node_output' ? String(event.text).replace(/\n$/, '') : [event.nodeId, event.error, event.reason, event.message].filter(Boolean).join(' ');
    cmd.io.out(`${p.dim(event.at.slice(11, 19))} ${event.runId ?? ''} ${event.type}${detail ? ` ${detail}` : ''}\n`);
  };
  // The client reconnects by itself (with Last-Event-ID); a server gone for good ends the watch.
  return new Promise<never>((_resolve, reject) => {
    let failingSince: number | undefined;
    source.onopen = () => {
      failingSince = undefined;
    };
    source.onerror = () => {
      failingSince ??= Date.now();
      if (source.readyState === EventSource.CLOSED || Date.now() - failingSince > RECONNECT_GIVE_UP_MS) {
        source.close();
        reject(new CliError(`Lost the connection to ${cmd.client.baseUrl}.`, EXIT.unreachable));
      }
    };
  });
}

/** `svc watch [run] [--conversation id | --all] [--exit-status]`. */
const watch: CommandRun = async (cmd, [runId], options) => {
  const opts = options as WatchOptions;
  if (opts.conversation || opts.all) {
    if (runId) throw new UsageError('give a run id, or --conversation / --all, not both');
    return watchStream(cmd, opts.conversation ?? '__dashboard__', Boolean(opts.verbose));
  }
  if (!runId) throw new UsageError('give a run id to watch, or --conversation <id>, or --all');
  const current = await cmd.client.request<RunView>('GET', `/api/workflows/runs/${encodeURIComponent(runId)}`);
  const printer = await RunPrinter.create(cmd.io, { verbose: Boolean(opts.verbose), quiet: Boolean(cmd.globals.json) });
  let run = current;
  try {
    if (!SETTLED.has(current.status)) run = await followRunOverSse(cmd, current.id, (event) => printer.handle(event));
  } finally {
    printer.close();
  }
  if (cmd.globals.json) printJson(cmd.io, run);
  else printer.finish(run);
  // Like `gh run watch`: the outcome is the exit code only when asked for.
  return opts.exitStatus ? exitCodeForStatus(run.status) : 0;
};

export default watch;
