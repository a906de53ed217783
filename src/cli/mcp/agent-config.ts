/** The agents `svc mcp --print-config` knows how to register svc with. */
export const MCP_AGENTS = ['claude', 'codex'] as const;
export type McpAgent = (typeof MCP_AGENTS)[number];

/** The command an agent runs to start svc's MCP server: `svc` on PATH (npm install -g, or npm link). */
const COMMAND = 'svc';
const ARGS = ['mcp'];

/**
 * The snippet that registers svc with an agent. Claude Code: its `claude mcp add` command (user
 * scope: every project), or a project's `.mcp.json`. Codex: the `[mcp_servers.svc]` table of
 * `~/.codex/config.toml` (its comment lines are TOML comments, so the output can be appended as is).
 */
export function agentConfig(agent: McpAgent): string {
  if (agent === 'claude') {
    const json = JSON.stringify({ mcpServers: { svc: { command: COMMAND, args: ARGS } } }, null, 2);
    return [
      '# Claude Code: run this once (user scope: every project)',
      `claude mcp add --scope user svc -- ${[COMMAND, ...ARGS].join(' ')}`,
      '',
      "# …or share it with a project's users: put this in .mcp.json at its root",
      json,
      '',
    ].join('\n');
  }
  return [
    '# Codex: add this to ~/.codex/config.toml',
    '[mcp_servers.svc]',
    `command = ${JSON.stringify(COMMAND)}`,
    `args = [${ARGS.map((arg) => JSON.stringify(arg)).join(', ')}]`,
    '',
  ].join('\n');
}
