// What `svc mcp --print-config` prints: how an agent registers svc's MCP server.
import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { packageRoot } from '../../shared/version.js';

/** The agents `svc mcp --print-config` knows how to register svc with. */
export const MCP_AGENTS = ['claude', 'codex'] as const;
export type McpAgent = (typeof MCP_AGENTS)[number];

/** How an agent starts svc's MCP server: a program and its arguments. */
export interface McpCommand {
  readonly command: string;
  readonly args: readonly string[];
}

/** This installation's own CLI entry. */
const OWN_BIN = join(packageRoot, 'bin', 'svc.mjs');

const realPath = (path: string): string | undefined => {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
};

/**
 * The command an agent runs to start svc's MCP server: `svc mcp` when the `svc` on `path` is this
 * installation (npm link, npm install -g); otherwise this Node and the absolute path of this
 * installation's entry, which works without `svc` on PATH — an agent starts it with its own PATH,
 * and `npx svc` outside the checkout names an unrelated npm package.
 */
export function mcpCommand(path: string): McpCommand {
  const own = realPath(OWN_BIN);
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'svc');
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    // The first `svc` on PATH is the one a shell runs: it must be this one.
    return realPath(candidate) === own ? { command: 'svc', args: ['mcp'] } : { command: process.execPath, args: [OWN_BIN, 'mcp'] };
  }
  return { command: process.execPath, args: [OWN_BIN, 'mcp'] };
}

/** A word for a POSIX shell: as is when plain, else single-quoted. */
const shellWord = (word: string): string => (/^[A-Za-z0-9_./:@%+=-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);

/**
 * The snippet that registers svc with an agent. Claude Code: its `claude mcp add` command (user
 * scope: every project), or a project's `.mcp.json`. Codex: the `[mcp_servers.svc]` table of
 * `~/.codex/config.toml` (its comment lines are TOML comments, so the output can be appended as is).
 */
export function agentConfig(agent: McpAgent, { command, args }: McpCommand): string {
  if (agent === 'claude') {
    const json = JSON.stringify({ mcpServers: { svc: { command, args } } }, null, 2);
    return [
      '# Claude Code: run this once (user scope: every project)',
      `claude mcp add --scope user svc -- ${[command, ...args].map(shellWord).join(' ')}`,
      '',
      "# …or share it with a project's users: put this in .mcp.json at its root",
      json,
      '',
    ].join('\n');
  }
  return [
    '# Codex: add this to ~/.codex/config.toml',
    '[mcp_servers.svc]',
    `command = ${JSON.stringify(command)}`,
    `args = [${args.map((arg) => JSON.stringify(arg)).join(', ')}]`,
    '',
  ].join('\n');
}
