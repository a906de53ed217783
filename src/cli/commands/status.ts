import { defineCommand } from '../define-command.js';
import { printJson, styler } from '../output.js';

function formatUptime(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

/** `svc status`: needs a server; none reachable → exit 5 (scripts can wait on it). */
export default defineCommand({
  run: async (cmd) => {
    const client = cmd.client('server');
    const health = await client.system.health();
    if (cmd.globals.json) {
      printJson(cmd.io, { url: client.baseUrl, ...health });
      return;
    }
    const paint = await styler(cmd.io);
    const agent = health.adapter.available ? paint.green('available') : paint.yellow('not found on PATH');
    cmd.io.out(
      [
        `${paint.green('●')} svc ${health.version} is running at ${client.baseUrl} (up ${formatUptime(health.uptimeMs)})`,
        `  runs:  ${health.concurrency.running} running, ${health.concurrency.queued} queued, at most ${health.concurrency.max} at once`,
        `  agent: ${health.adapter.name}${health.adapter.model ? ` (${health.adapter.model})` : ''}, ${agent}`,
        '',
      ].join('\n'),
    );
  },
});
