import { spawn, type ChildProcess } from 'node:child_process';
import { loadTerminalSettings } from '../../shared/settings.js';
import { defineCommand } from '../define-command.js';
import { CliError } from '../exit-codes.js';
import { printJson } from '../output.js';

/** Resolves once the program started, rejects when it could not be (not on PATH, no display helper). */
function started(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('spawn', () => {
      child.unref();
      resolve();
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
    const url = `${client.baseUrl}/${hash}`;
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
