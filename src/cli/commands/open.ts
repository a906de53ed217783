import { spawn, type ChildProcess } from 'node:child_process';
import { loadTerminalSettings } from '../../shared/settings.js';
import { defineCommand } from '../define-command.js';
import { CliError } from '../exit-codes.js';
import { browsableUrl, printJson } from '../output.js';

/** A browser that is still running this long after its start has taken the URL. */
const SETTLE_MS = 1500;

/**
 * Resolves once the program took the URL: it is still running after a moment, or it ended well
 * (a browser handing the URL to its running window exits 0 at once). Rejects when it could not
 * start, or ended with a failure (the shell's 127 for a `BROWSER` that names nothing).
 */
function started(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.unref();
      resolve();
    }, SETTLE_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(signal ? `it was killed by ${signal}` : `it exited with status ${code}`));
    });
  });
}

/**
 * `$BROWSER` first, as other tools honour it (a command line, run by the shell with the URL as its
 * last argument); else the system's default browser through the `open` package (xdg-open, macOS
 * `open`, Windows `start`, WSL).
 */
async function openInBrowser(url: string, browser: string | undefined): Promise<void> {
  if (browser) {
    await started(spawn('/bin/sh', ['-c', `${browser} "$1"`, 'sh', url], { stdio: 'ignore', detached: true }));
    return;
  }
  const { default: open } = await import('open');
  await started(await open(url));
}

/** `svc open [run]`: the dashboard of the running server (a run's page, given one) in a browser. */
export default defineCommand({
  args: [['[run]', "open this run's page (id or unambiguous prefix)"]],
  options: { print: ['--print', 'print the URL and open nothing'] },
  run: async (cmd, [runId], options) => {
    // The dashboard is served by a running server: none reachable is exit 5, as for `svc status`.
    const client = cmd.client('server');
    await client.system.health();
    const hash = runId === undefined ? '' : `#/runs/${encodeURIComponent((await client.runs.get(runId)).id)}`;
    const url = `${browsableUrl(client.baseUrl)}/${hash}`;
    if (cmd.globals.json) printJson(cmd.io, { url });
    else cmd.io.out(`${url}\n`);
    if (options.print) return;
    try {
      await openInBrowser(url, loadTerminalSettings(cmd.io.env).browser);
    } catch (error) {
      throw new CliError(`Could not start a browser (${(error as Error).message}). Open ${url} yourself, or set BROWSER.`);
    }
  },
});
