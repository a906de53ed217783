import { presetOwnEnv, type AgentKind, type AssistantLaunch } from '../config/index.js';
import { withheldEnvironment } from './agent-env.js';
import { readCodexProviderKeyEnv } from './codex-config.js';
import type { Agent, AgentEndpoint, AgentRequest } from './types.js';

/** What a node or a conversation reply gives the environment of its agent (docs/contract.md, "Least-privilege environment"). */
export interface AgentEnvInput {
  launch: AssistantLaunch;
  endpoint: AgentEndpoint | null;
  /** The server's environment. */
  server: NodeJS.ProcessEnv;
  allow: readonly string[];
  /** The workspace's values, and a run's variables. */
  given: Readonly<Record<string, string>>;
}

/**
 * The environment of one agent call, withheld: the base set with the agent's own variables (claude's,
 * codex's, an acp preset's), its key's variable — the endpoint's `apiKeyEnv`, else the one codex's own
 * config.toml names for its provider (`env_key`), which codex cannot start without — what the server
 * allows, and the given values, an acp assistant's configured `env` first.
 */
export async function agentEnvironment({ launch, endpoint, server, allow, given }: AgentEnvInput): Promise<{ env: NodeJS.ProcessEnv; given: string[] }> {
  if (launch.kind === 'acp')
    return withheldEnvironment({ server, agentEnv: presetOwnEnv(launch.preset), apiKeyEnv: launch.apiKeyEnv, allow, given: { ...launch.env, ...given } });
  const apiKeyEnv = endpoint ? endpoint.apiKeyEnv : launch.kind === 'codex' ? await readCodexProviderKeyEnv(server) : null;
  return withheldEnvironment({ server, assistant: launch.kind, apiKeyEnv, allow, given });
}

/** The agent that answers for `launch`, and what its request must say of it (an acp assistant's name and command). */
export function agentFor(agents: Record<AgentKind, Agent>, launch: AssistantLaunch): { agent: Agent; request: Pick<AgentRequest, 'assistant' | 'acp'> } {
  if (launch.kind !== 'acp') return { agent: agents[launch.kind], request: {} };
  const { name, command, env, preset, apiKeyEnv } = launch;
  return { agent: agents.acp, request: { assistant: name, acp: { name, command, env, preset, apiKeyEnv } } };
}
