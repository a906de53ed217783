import { DASHBOARD_STREAM, isSettlingEvent, type NodeLogPage, type RunView, type SvcClient } from '../../../client/index.js';
import type { CommandContext } from '../../context.js';
import { defineCommand, RUN_ARG } from '../../define-command.js';
import { CliError, EXIT, UsageError } from '../../exit-codes.js';
import { printJson, styler } from '../../output.js';
import { isSettled, lastEventPosition } from './_follow.js';

/** Node states after which its log grows no more (a gate or a wait prints nothing, but may yet start). */
const DONE = new Set(['completed', 'failed', 'skipped', 'cancelled']);
const NODE_ENDS = new Set(['node_completed', 'node_failed', 'node_skipped']);

/**
 * `node_output` events carry a node's first 64 KiB only (docs/decisions.md, "Node output"): past
 * them a follower learns of new lines by reading the log again, once a second.
 */
const STREAMED_BYTES = 64 * 1024;
const REREAD_MS = 1000;

/** Writes the log from `offset` to where it ends now, page by page; returns the last page. */
async function printFrom(cmd: CommandContext, client: SvcClient, runId: string, nodeId: string, offset: number): Promise<NodeLogPage> {
  for (;;) {
    const page = await client.runs.log(runId, nodeId, { offset });
    if (page.text) cmd.io.out(page.text);
    // An unfinished last character (a log being written) waits for the next read.
    if (page.nextOffset >= page.size || page.nextOffset === offset) return page;
    offset = page.nextOffset;
  }
}

/**
 * `--follow`: the log so far, then what the node prints until it ends. The run's event stream
 * (SSE, or the bus in process) says when to read again — a `node_output` of the node, its end, the
 * run's — and each read takes the log from where the last stopped, so nothing is printed twice or
 * missed, whatever the events carried.
 */
async function follow(cmd: CommandContext, client: SvcClient, run: Pick<RunView, 'id' | 'status'>, nodeId: string): Promise<void> {
  const runId = run.id;
  // Taken first: the events after it include everything that happens from the first read on.
  const after = await lastEventPosition(client, runId);
  let page = await printFrom(cmd, client, runId, nodeId, 0);
  if (DONE.has(page.status) || (isSettled(run) && page.status !== 'running')) return;
  await new Promise<void>((resolve, reject) => {
    let feed: { close(): void } | undefined;
    let timer: NodeJS.Timeout | undefined;
    let reading: Promise<void> | undefined;
    let again = false;
    let runSettled = false;
    // The node's end event comes once its log is closed (node-execution.ts): the next read is the last.
    // Its record may say `running` a moment longer (the round's write follows the event).
    let nodeEnded = false;
    let finished = false;
    const finish = (error?: unknown) => {
      if (finished) return;
      finished = true;
      clearInterval(timer);
      feed?.close();
      if (error) reject(error instanceof Error ? error : new Error(String(error)));
      else resolve();
    };
    // One read at a time; a wake-up during one makes one more after it.
    const read = () => {
      if (finished) return;
      if (reading) return void (again = true);
      reading = (async () => {
        do {
          again = false;
          page = await printFrom(cmd, client, runId, nodeId, page.nextOffset);
        } while (again);
        if (nodeEnded || DONE.has(page.status) || (runSettled && page.status !== 'running')) return finish();
        if (!timer && !finished && page.nextOffset >= STREAMED_BYTES) timer = setInterval(read, REREAD_MS);
      })().then(
        () => (reading = undefined),
        (error: unknown) => finish(error),
      );
    };
    client.events
      .follow({
        stream: DASHBOARD_STREAM,
        runId,
        after,
        onEvent: (event) => {
          if (!('runId' in event) || event.runId !== runId) return;
          // A run that settles (ends, pauses) with the node not running leaves it nothing more to print.
          if (isSettlingEvent(event)) runSettled = true;
          if ('nodeId' in event && event.nodeId === nodeId && NODE_ENDS.has(event.type)) nodeEnded = true;
          if (('nodeId' in event && event.nodeId === nodeId) || isSettlingEvent(event)) read();
        },
        onLost: () => finish(new CliError(`Lost the connection to ${client.baseUrl} while following ${nodeId}'s log.`, EXIT.unreachable)),
      })
      .then((opened) => {
        feed = opened;
        if (finished) return opened.close();
        // What it printed between the first read and the stream's opening.
        read();
      }, finish);
  });
}

/**
 * `svc runs logs <run> [node] [--follow]`: a node's whole log (`<node>.log`: stdout and stderr as
 * they came, svc's retry notes), as written, on stdout; without a node, every node's that printed
 * anything, each under a header. `--follow` keeps printing what a running node prints until it ends.
 */
export default defineCommand({
  args: [RUN_ARG, ['[node]', 'node id (default: every node that printed something)']],
  options: {
    follow: ['-f, --follow', 'keep printing what the node prints until it ends (needs a server)'],
  },
  run: async (cmd, [runId, nodeId], options) => {
    // Following needs the events of a run that executes somewhere: a server's (as `svc watch`).
    const client = cmd.client(options.follow ? 'server' : undefined);
    const run = await client.runs.get(runId);
    if (options.follow) {
      if (!nodeId) throw new UsageError(`name the node to follow: svc runs logs ${run.id} <node> --follow (nodes: ${Object.keys(run.nodes).join(', ')})`);
      if (cmd.globals.json) throw new UsageError('--follow prints the log as it grows; --json takes a whole log (without --follow)');
      return follow(cmd, client, run, nodeId);
    }
    const nodes = nodeId ? [nodeId] : Object.keys(run.nodes);
    const logs: Array<{ nodeId: string; status: string; text: string }> = [];
    const p = await styler(cmd.io);
    for (const id of nodes) {
      if (cmd.globals.json) {
        let text = '';
        let page: NodeLogPage | undefined;
        do {
          page = await client.runs.log(run.id, id, { offset: page?.nextOffset ?? 0 });
          text += page.text;
        } while (page.nextOffset < page.size && page.text);
        logs.push({ nodeId: id, status: page.status, text });
        continue;
      }
      if (nodeId) {
        await printFrom(cmd, client, run.id, id, 0);
        continue;
      }
      // Every node: a header for each that printed something, as `tail` does with several files.
      const first = await client.runs.log(run.id, id, { offset: 0 });
      if (first.size === 0) continue;
      cmd.io.out(`${logs.length ? '\n' : ''}${p.bold(`==> ${id} (${first.status}) <==`)}\n${first.text}`);
      logs.push({ nodeId: id, status: first.status, text: '' });
      const last = first.nextOffset < first.size ? await printFrom(cmd, client, run.id, id, first.nextOffset) : first;
      if (!last.text.endsWith('\n')) cmd.io.out('\n');
    }
    if (cmd.globals.json) printJson(cmd.io, nodeId ? logs[0] : { runId: run.id, logs });
  },
});
