/**
 * Who sends an API request, where an audit entry must say so (docs/contract.md, "Log entries"): the CLI
 * names itself in this header, and `svc mcp` — the CLI on behalf of an agent — says `mcp`; anything
 * else is `api`. A run `svc mcp` starts takes its values from an agent, so from outside
 * (docs/decisions.md, "Bash nodes in a sandbox").
 */
export const ACTOR_HEADER = 'x-svc-actor';
export type Actor = 'api' | 'cli' | 'mcp';

export const actorOf = (headers: { get(name: string): string | null }): Actor => {
  const said = headers.get(ACTOR_HEADER);
  return said === 'cli' || said === 'mcp' ? said : 'api';
};
