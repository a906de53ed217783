import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from 'h3';
import { closeContext, createContext, type AppContext } from '../app/context.js';
import type { Settings } from '../shared/settings.js';
import { createApp } from './app.js';
import { answerParserErrorsAsJson } from './client-error.js';
import { trackConnections } from './graceful-close.js';
import { BROWSER_BLOCKED_PORTS, planPort, type PortPlan } from './port.js';
import { ListenError } from './listen-error.js';
import { routes } from './routes/index.js';
import { isLoopbackBind } from './loopback.js';

export { ListenError };

export interface RunningServer {
  url: string;
  port: number;
  ctx: AppContext;
  server: Server;
  /** Stops accepting, ends open streams, flushes the store and releases its lock. */
  close(): Promise<void>;
}

export interface StartOptions {
  settings: Settings;
  /** Where the port rules look for a git worktree; the server's working directory. */
  cwd: string;
  /** Readable log lines (the terminal's stderr); omitted in tests. */
  stderr?: { write(text: string): unknown };
}

/**
 * The ports to try, in order: a worktree's own port, then the rest of its range (docs/decisions.md,
 * Port), without the ones browsers refuse to connect to (the dashboard must open there).
 */
function candidatePorts(plan: PortPlan): number[] {
  return plan.kind === 'worktree' ? [plan.port, ...plan.fallbacks].filter((port) => !BROWSER_BLOCKED_PORTS.has(port)) : [plan.port];
}

function listenOn(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      server.off('listening', done);
      reject(error);
    };
    const done = () => {
      server.off('error', fail);
      resolve();
    };
    server.once('error', fail);
    server.once('listening', done);
    server.listen(port, host);
  });
}

/** Listens on the first free port of the plan; never silently elsewhere (port 0 means any). */
async function listenFirstFree(server: Server, host: string, plan: PortPlan): Promise<void> {
  const ports = candidatePorts(plan);
  for (const [index, port] of ports.entries()) {
    try {
      return await listenOn(server, host, port);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || index === ports.length - 1) throw error;
    }
  }
}

function describeBusy(plan: PortPlan, host: string): string {
  if (plan.kind === 'worktree') return `No free port in 3190-4089 on ${host} for this worktree.`;
  const hint = plan.kind === 'default' ? ' Set PORT to use another one, or stop the process using it.' : '';
  return `Port ${plan.port} on ${host} is already in use.${hint}`;
}

/**
 * Opens the store (taking its writer lock), builds the app and listens on a plain node:http
 * server. (listhen did this before; with node-forge and consola it was ~740 KiB of code loaded at
 * every start for conveniences a local service turns off: docs/decisions.md, "Footprint".)
 */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { settings } = options;
  // Side by side: without PORT, the port rules ask git whether the cwd is a linked worktree (a
  // subprocess) while the store opens and the workflows are discovered.
  const [planned, opened] = await Promise.allSettled([
    planPort(settings.port, options.cwd),
    createContext({ settings, stderr: options.stderr, lock: 'server' }),
  ]);
  if (opened.status === 'rejected') throw opened.reason;
  const ctx = opened.value;
  if (planned.status === 'rejected') {
    await closeContext(ctx);
    throw planned.reason;
  }
  const plan = planned.value;
  const server = createServer(toNodeHandler(createApp(ctx, routes)));
  const connections = trackConnections(server);
  try {
    await listenFirstFree(server, settings.host, plan);
  } catch (error) {
    await closeContext(ctx);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new ListenError(describeBusy(plan, settings.host));
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new ListenError(`Cannot listen on host '${settings.host}' (${code}).`);
    if (code === 'EACCES') throw new ListenError(`Not allowed to listen on port ${plan.port} on ${settings.host} (EACCES).`);
    throw error;
  }
  answerParserErrorsAsJson(server);
  // The body timer of http-input.ts cuts a body a route reads, at the deadline. A body no route
  // reads (answered without it, then drained by Node) is cut by Node's own request timeout, set to
  // the same value instead of its 300 s; Node looks at it only every 30 s, so that cut comes late.
  server.requestTimeout = settings.bodyTimeoutMs;
  const address = server.address() as AddressInfo;
  const urlHost = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  const url = `http://${urlHost}:${address.port}`;
  ctx.listening = { host: settings.host, port: address.port, url };
  ctx.store.lock?.update({ url });
  ctx.logger.info('server.listening', { url, home: settings.home, pid: process.pid });
  if (!isLoopbackBind(settings.host)) {
    ctx.logger.warn('server.exposed', { host: settings.host, message: 'the API has no authentication; protect it with a firewall or reverse proxy' });
  }

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      ctx.logger.info('server.stopping', {});
      for (const closer of [...ctx.closers].reverse()) await Promise.resolve(closer()).catch(() => {});
      // Streams were ended above; anything still answering after a grace period is cut.
      await connections.close(3000);
      await closeContext(ctx);
    })());
  return { url, port: address.port, ctx, server, close };
}
