import { packageVersion } from '../../shared/version.js';
import { databaseUrl, parsePort, SettingsError } from '../../shared/settings.js';
import { defineCommand } from '../define-command.js';
import { CliError, UsageError } from '../exit-codes.js';
import { browsableUrl, printJson } from '../output.js';

/** `svc serve`: runs until SIGINT/SIGTERM, then stops accepting, flushes the store and exits 0. */
export default defineCommand({
  options: {
    port: ['-p, --port <port>', 'listen on this port (overrides PORT)'],
    host: ['--host <host>', 'bind address (overrides SVC_HOST; default 127.0.0.1)'],
    databaseUrl: ['--database-url <url>', 'share a PostgreSQL database with other servers (overrides SVC_DATABASE_URL; docs/scaling.md)'],
  },
  run: async (cmd, _args, options) => {
    const settings = { ...cmd.settings };
    try {
      if (typeof options.port === 'string') settings.port = parsePort(options.port, '--port');
      if (typeof options.databaseUrl === 'string') settings.databaseUrl = databaseUrl(options.databaseUrl, '--database-url');
    } catch (error) {
      if (error instanceof SettingsError) throw new UsageError(error.message);
      throw error;
    }
    if (typeof options.host === 'string') settings.host = options.host;

    // The error classes come from the runtime bundle that throws them (class identity).
    const { startServer, ListenError, StoreLockedError, DatabaseUnavailableError } = await import('../../runtime.js');
    let server;
    try {
      server = await startServer({ settings, cwd: process.cwd(), stderr: process.stderr });
    } catch (error) {
      if (error instanceof ListenError || error instanceof StoreLockedError || error instanceof DatabaseUnavailableError) throw new CliError(error.message);
      throw error;
    }
    const dashboard = `${browsableUrl(server.url)}/`;
    if (cmd.globals.json)
      printJson(cmd.io, { url: server.url, dashboard, port: server.port, pid: process.pid, home: settings.home, version: packageVersion() });
    else cmd.io.out(`svc ${packageVersion()} listening on ${server.url} (home: ${settings.home})\ndashboard: ${dashboard}\n`);

    await new Promise<void>((resolve) => {
      let stopping = false;
      const stop = (signal: NodeJS.Signals) => {
        if (stopping) {
          // A second Ctrl-C means "now": skip the graceful path.
          process.exit(130);
        }
        stopping = true;
        cmd.io.err(`\nsvc: ${signal} received, shutting down…\n`);
        void server.close().then(resolve, (error: unknown) => {
          cmd.io.err(`svc: shutdown error: ${(error as Error).message}\n`);
          resolve();
        });
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      // A bug that leaves a promise rejected must cost one request or one run, never the server.
      process.on('unhandledRejection', (reason) => {
        server.ctx.logger.error('server.unhandled_rejection', {
          error: reason instanceof Error ? reason.message : String(reason),
          stack: reason instanceof Error ? reason.stack : undefined,
        });
      });
    });
    // Open handles (e.g. a client's keep-alive socket) must not keep a stopped server's process alive.
    process.exit(0);
  },
});
