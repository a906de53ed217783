import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandContext } from '../context.js';
import { defineCommand } from '../define-command.js';
import { EXIT } from '../exit-codes.js';
import { printJson, styler } from '../output.js';
import { readLock } from '../../shared/lock-file.js';

/**
 * `svc doctor`: whether agents at `read` and `edit`, and bash nodes given a sandbox, can run in it
 * on this machine (docs/contract.md, "Sandbox"), and what to install when not. It checks this
 * machine, not a server's (which may run elsewhere), so it needs neither a server nor the store.
 * Then each configured acp assistant: its command's version and whether it answers ACP's
 * `initialize`. Exit 0 when every needed check passes (or `SVC_SANDBOX=off` is set) and every acp
 * assistant answers, 1 otherwise.
 */
export default defineCommand({
  options: {
    probeAcp: ['--probe-acp', "start the acp assistants' commands here even when the server is another one (its commands are its machine's)"],
  },
  run: async (cmd, _args, options) => {
    const { sandboxDoctor } = await import('../../runtime.js');
    const { settings } = cmd;
    const report = await sandboxDoctor({ path: cmd.io.env.PATH, sandbox: settings.sandbox, claudeBin: settings.claudeBin, codexBin: settings.codexBin });
    const { probes: assistants, skipped } = await acpAssistants(cmd, Boolean(options.probeAcp));
    const code = report.ready && assistants.every((a) => a.initialize.ok) ? EXIT.ok : EXIT.failed;
    if (cmd.globals.json) {
      printJson(cmd.io, { ...report, acpAssistants: assistants, ...(skipped ? { acpAssistantsNotProbed: skipped } : {}) });
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
    for (const probe of assistants) {
      const said = probe.initialize.ok
        ? `${paint.green('ok     ')}  ${probe.name}: ${probe.command} — ${probe.version ?? 'no --version'}; initialize answered by ${probe.initialize.agent} (ACP ${probe.initialize.protocolVersion})`
        : `${paint.red('failed ')}  ${probe.name}: ${probe.command} — ${probe.version ?? 'no --version'}; initialize failed: ${probe.initialize.error}`;
      lines.push(said);
    }
    if (skipped) lines.push(paint.yellow(skipped));
    cmd.io.out(`${lines.join('\n')}\n`);
    return code;
  },
});

/**
 * Whether the server whose configuration was read is this machine's own: the commands it runs are
 * then the ones found here. Its home must be ours, and a URL the user named must be the one our
 * home's live server wrote into its lock (a server elsewhere may share a home's path).
 */
function servedHere(cmd: CommandContext, serverHome: string): boolean {
  if (serverHome !== cmd.settings.home) return false;
  if (!cmd.target.explicit) return true;
  const holder = readLock(cmd.settings.home);
  return holder?.kind === 'server' && holder.url === cmd.target.url;
}

/**
 * Each configured acp assistant, probed on this machine: its command's version and one ACP
 * `initialize` (agents/acp-probe.ts). The configuration is read through the client (a server's, or
 * the store here, when there is one); one that cannot be read leaves the list empty, said on stderr. Another
 * machine's server's commands are not started here unless asked (`--probe-acp`): they are that
 * machine's, and would run here with this user's environment; `skipped` says so.
 */
async function acpAssistants(cmd: CommandContext, probeAnyway: boolean) {
  // No server, no database and no home yet: nothing is configured, and reading would make a store.
  if (!cmd.target.running && !cmd.settings.databaseUrl && !existsSync(cmd.settings.home)) return { probes: [] };
  let config;
  try {
    config = await cmd.client().config.get();
  } catch (error) {
    cmd.io.err(`svc doctor: the assistants' configuration could not be read (${(error as Error).message}); acp assistants not checked\n`);
    return { probes: [] };
  }
  const acp = Object.entries(config.assistants).filter(([, assistant]) => assistant.kind === 'acp' && assistant.command);
  if (acp.length > 0 && !probeAnyway && !servedHere(cmd, config.home)) {
    const names = acp.map(([name]) => name).join(', ');
    return {
      probes: [],
      skipped: `acp assistants of ${cmd.target.url} not checked (${names}): that server's commands are its machine's; svc doctor --probe-acp starts them here`,
    };
  }
  const { probeAcpAgent } = await import('../../runtime.js');
  const probes = [];
  for (const [name, assistant] of Object.entries(config.assistants)) {
    if (assistant.kind !== 'acp' || !assistant.command) continue;
    // Its own directory in this machine's home: another server's home is not a path here.
    const probe = await probeAcpAgent({ command: assistant.command, preset: assistant.preset }, cmd.io.env, join(cmd.settings.home, 'agents', name));
    probes.push({ name, command: assistant.command.join(' '), ...probe });
  }
  return { probes };
}
