import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { toNodeHandler } from 'h3';
import { closeContext, createContext, type AppContext } from '../app/context.js';
import type { Settings } from '../shared/settings.js';
import { createApp } from './app.js';
import { answerParserErrorsAsJson } from './client-error.js';
import { planPort, type PortPlan } from './port.js';
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
 * listhen wraps its server with http-shutdown, whose `finish` listener writes to `req.socket`.
 * Node clears `req.socket` when a request is destroyed mid-body (our 413 on an oversized chunked
 * upload), and that listener then throws and kills the process. Our `finish` listener is added
 * first (the handler runs before http-shutdown's `request` listener), so it puts the socket back.
 */
function keepSocketForShutdown(handler: (req: IncomingMessage, res: ServerResponse) => unknown) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    res.once('finish', () => {
      if (!req.socket) (req as { socket: Socket }).socket = socket;
    });
    return handler(req, res);
  };
}

/** get-port-please options that never silently move to another port (listhen's dev default). */
function portOptions(plan: PortPlan) {
  const strict = { alternativePortRange: [] as number[], random: plan.port === 0, verbose: false };
  return plan.kind === 'worktree' ? { port: plan.port, ports: plan.fallbacks, ...strict } : { port: plan.port, ...strict };
}

function describeBusy(plan: PortPlan, host: string): string {
  if (plan.kind === 'worktree') return `No free port in 3190-4089 on ${host} for this worktree.`;
  const hint = plan.kind === 'default' ? ' Set PORT to use another one, or stop the process using it.' : '';
  return `Port ${plan.port} on ${host} is already in use.${hint}`;
}

/**
 * Opens the store (taking its writer lock), builds the app and listens through listhen, with its
 * conveniences that do not fit a local service turned off: no silent port switching, no signal
 * handlers of its own (ours flush the store first), no tunnel, no banner on stdout.
 */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { settings } = options;
  // Side by side: without PORT, the port rules ask git whether the cwd is a linked worktree (a
  // subprocess) while the store opens and the workflows are discovered; listhen loads meanwhile.
  const loading = import('listhen');
  loading.catch(() => {});
  const [planned, opened] = await Promise.allSettled([
    planPort(settings.port, options.cwd),
    createContext({ settings, stderr: options.stderr, role: 'server' }),
  ]);
  if (opened.status === 'rejected') throw opened.reason;
  const ctx = opened.value;
  if (planned.status === 'rejected') {
    await closeContext(ctx);
    throw planned.reason;
  }
  const plan = planned.value;
  let listener;
  try {
    const { listen } = await loading;
    listener = await listen(keepSocketForShutdown(toNodeHandler(createApp(ctx, routes))), {
      hostname: settings.host,
      // listhen spreads an object `port` into get-port-please's options.
      port: portOptions(plan) as unknown as number,
      public: !isLoopbackBind(settings.host),
      showURL: false,
      autoClose: false,
      qr: false,
      tunnel: false,
      open: false,
      clipboard: false,
    });
  } catch (error) {
    await closeContext(ctx);
    const code = (error as NodeJS.ErrnoException).code;
    const message = (error as Error).message ?? '';
    if (code === 'EADDRINUSE' || /available port|Unable to find/i.test(message)) throw new ListenError(describeBusy(plan, settings.host));
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new ListenError(`Cannot listen on host '${settings.host}' (${code}).`);
    throw error;
  }
  answerParserErrorsAsJson(listener.server as Server);
  // The body timer of http-input.ts cuts a body a route reads, at the deadline. A body no route
  // reads (answered without it, then drained by Node) is cut by Node's own request timeout, set to
  // the same value instead of its 300 s; Node looks at it only every 30 s, so that cut comes late.
  (listener.server as Server).requestTimeout = settings.bodyTimeoutMs;
  const address = listener.address as { port: number };
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
      const server = listener.server as Server;
      // Streams were ended above; anything still open after a grace period is cut.
      const force = setTimeout(() => server.closeAllConnections?.(), 3000);
      force.unref();
      await listener.close().catch(() => {});
      clearTimeout(force);
      await closeContext(ctx);
    })());
  return { url, port: address.port, ctx, server: listener.server as Server, close };
}
