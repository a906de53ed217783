import { defineCommand } from '../define-command.js';
import { EXIT } from '../exit-codes.js';
import { printJson, styler } from '../output.js';

/**
 * `svc doctor`: whether agents at `read` and `edit`, and bash nodes given a sandbox, can run in it
 * on this machine (docs/contract.md, "Sandbox"), and what to install when not. It checks this
 * machine, not a server's (which may run elsewhere), so it needs neither a server nor the store.
 * Exit 0 when every needed check passes or `SVC_SANDBOX=off` is set, 1 otherwise.
 */
export default defineCommand({
  run: async (cmd) => {
    const { sandboxDoctor } = await import('../../runtime.js');
    const { settings } = cmd;
    const report = await sandboxDoctor({ path: cmd.io.env.PATH, sandbox: settings.sandbox, claudeBin: settings.claudeBin, codexBin: settings.codexBin });
    const code = report.ready ? EXIT.ok : EXIT.failed;
    if (cmd.globals.json) {
      printJson(cmd.io, report);
      return code;
    }
    const paint = await styler(cmd.io);
    const mark = { ok: paint.green('ok     '), missing: paint.red('missing'), off: paint.yellow('off    ') };
    const width = Math.max(...report.checks.map((c) => c.name.length));
    const lines: string[] = [];
    for (const check of report.checks) {
      const status = check.status === 'missing' && !check.needed ? paint.yellow('missing') : mark[check.status];
      lines.push(`${status}  ${check.name.padEnd(width)}  ${check.found}`);
      if (check.status !== 'ok' && check.fix) lines.push(`${' '.repeat(9 + width + 2)}${paint.dim('→')} ${check.fix}`);
    }
    lines.push('');
    if (report.install) lines.push(`To install what is missing (Debian/Ubuntu): ${paint.bold(report.install)}`);
    if (report.sandbox === 'off') lines.push(paint.yellow('SVC_SANDBOX=off: agents at read and edit run unconfined, and so do bash nodes given a sandbox.'));
    else {
      // Two sentences: a machine without ripgrep runs agents sandboxed, and its bash nodes given a sandbox fail.
      if (report.agentsReady) lines.push(paint.green('Agents at read and edit can run in their sandbox here.'));
      else lines.push(paint.red('Agents at read and edit cannot run in their sandbox here: their nodes would fail sandbox_unavailable.'));
      if (report.bashReady) lines.push(paint.green("Bash nodes given a sandbox (sandbox: true, SVC_SANDBOX_BASH=1, a webhook's runs) can run in it here."));
      else
        lines.push(
          paint.red(
            "Bash nodes given a sandbox (sandbox: true, SVC_SANDBOX_BASH=1, a webhook's runs) cannot run in it here: they would fail sandbox_unavailable.",
          ),
        );
    }
    cmd.io.out(`${lines.join('\n')}\n`);
    return code;
  },
});
