import { packageVersion } from '../../shared/version.js';
import { defineCommand } from '../define-command.js';
import { CliError, EXIT } from '../exit-codes.js';
import { agentConfig, MCP_AGENTS, mcpCommand, type McpAgent } from '../mcp/agent-config.js';

/**
 * `svc mcp`: svc as a tool for coding agents (docs/mcp.md). The server and the SDK load only
 * here, so other commands do not pay for them; nothing but protocol messages goes to stdout.
 */
export default defineCommand({
  options: {
    printConfig: ['--print-config <agent>', `print the snippet that registers svc with an agent (${MCP_AGENTS.join(', ')})`],
  },
  run: async (cmd, _args, options) => {
    if (options.printConfig !== undefined) {
      if (!(MCP_AGENTS as readonly string[]).includes(options.printConfig)) {
        throw new CliError(`--print-config takes ${MCP_AGENTS.join(' or ')}, not '${options.printConfig}'.`, EXIT.usage);
      }
      cmd.io.out(agentConfig(options.printConfig as McpAgent, mcpCommand(cmd.settings.searchPath)));
      return;
    }
    const { serveMcp } = await import('../mcp/server.js');
    await serveMcp({
      client: cmd.client('server-or-local', 'mcp'),
      version: packageVersion(),
      cwd: process.cwd(),
      stdin: process.stdin,
      stdout: process.stdout,
      log: (line) => cmd.io.err(line),
    });
  },
});
