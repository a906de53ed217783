import type { Readable, Writable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { SvcClient } from '../../client/index.js';
import { isSettled } from '../commands/run/_follow.js';
import { registerResources } from './resources.js';
import { registerTools } from './tools.js';

export interface McpOptions {
  client: SvcClient;
  version: string;
  /** The directory runs start in unless a call names another. */
  cwd: string;
  stdin: Readable;
  stdout: Writable;
  /** Where what a person should read goes: stderr. stdout carries protocol messages only. */
  log(line: string): void;
}

const INSTRUCTIONS =
  'svc runs workflows of coding agents and scripts. list_workflows shows what can run here; start_run starts one and gives its run id; ' +
  'wait_run follows it until it ends or pauses at an approval gate (call it again while timedOut is true); run_diff shows what it changed; ' +
  'approve_run or reject_run answers a gate; cancel_run stops it.';

/**
 * `svc mcp`: an MCP server on stdio over the client every command uses (a running server, or
 * the store in this process). Resolves when the agent ends the session: it closes stdin, or stops
 * the process (SIGTERM, SIGINT, SIGHUP). Runs this session started that execute in this process
 * are cancelled then, since nothing else would carry them (docs/mcp.md).
 */
export async function serveMcp(options: McpOptions): Promise<void> {
  const { client } = options;
  const started = new Set<string>();
  const server = new McpServer({ name: 'svc', version: options.version }, { instructions: INSTRUCTIONS });
  registerTools(server, { client, cwd: options.cwd, started });
  registerResources(server, client);

  const transport = new StdioServerTransport(options.stdin, options.stdout);
  // An agent ends its MCP servers by closing stdin, or with a signal: either way the session ends
  // the same, so that runs executing here are cancelled rather than cut off mid-write.
  const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];
  let end = () => {};
  const closed = new Promise<void>((resolve) => {
    end = resolve;
    transport.onclose = resolve;
    options.stdin.once('end', resolve);
    options.stdin.once('close', resolve);
  });
  for (const signal of signals) process.on(signal, end);
  transport.onerror = (error) => options.log(`svc mcp: ${error.message}\n`);
  await server.connect(transport);
  options.log(`svc mcp: serving svc's tools on stdio (pid ${process.pid})\n`);
  await closed;
  for (const signal of signals) process.off(signal, end);
  await server.close().catch(() => {});
  await cancelOwnRuns(client, started, options.log);
}

/** The session's runs still executing in this process: cancelled, so that closing the client does not wait on them forever. */
async function cancelOwnRuns(client: SvcClient, started: ReadonlySet<string>, log: (line: string) => void): Promise<void> {
  if (started.size === 0 || (await client.runHost()) !== 'process') return;
  for (const id of started) {
    const run = await client.runs.get(id).catch(() => undefined);
    if (!run || isSettled(run)) continue;
    log(`svc mcp: the session ended; cancelling run ${id} (it executes in this process)\n`);
    await client.runs.cancel(id).catch(() => {});
  }
}
