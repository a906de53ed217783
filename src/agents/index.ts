/**
 * Coding agents as subprocesses: Claude Code, Codex and any ACP agent behind one `Agent` interface, the JSON-lines
 * process runner, their tool calls, usage limits, the least-privilege environment and agent slots.
 */
import { join } from 'node:path';
import type { AgentKind } from '../config/index.js';
import type { Settings } from '../shared/settings.js';
import { createAcpAgent } from './acp.js';
import { createClaudeAgent } from './claude.js';
import { createCodexAgent } from './codex.js';
import type { Agent } from './types.js';

export { AgentSlots, withAgentSlots } from './agent-slots.js';
export { AGENT_AUTH_ENV, BASE_ENV, ENV_NAME_PATTERN, NESTED_AGENT_MARKERS, withheldEnvironment, withheldVariableHint } from './agent-env.js';
export { readCodexProviderKeyEnv } from './codex-config.js';
export {
  AGENT_TOOL_STATUSES,
  emptyToolTally,
  tallyToolCall,
  TOOL_EVENTS_MAX,
  TOOL_SUMMARY_MAX,
  TOOLS_DENIED_KEPT,
  type AgentToolCall,
  type AgentToolStatus,
  type ToolTally,
} from './tool-activity.js';
export { claudePermissionArgs, codexPermissionArgs } from './permissions.js';
export { lineSplitter, type LineSplitter } from './line-splitter.js';
export { claudeSandboxSettings, codexSandboxArgs } from './sandbox.js';
export { acpAllows } from './acp-permissions.js';
export { agentEnvironment, agentFor } from './agent-launch.js';
export { probeAcpAgent, type AcpProbe } from './acp-probe.js';
export {
  AgentError,
  type AcpLaunch,
  type Agent,
  type AgentEndpoint,
  type AgentErrorCode,
  type AgentRequest,
  type AgentResult,
  type AgentTokens,
} from './types.js';

/**
 * The agents by how they are driven, with executables from the settings (`SVC_CLAUDE_BIN`,
 * `SVC_CODEX_BIN`); an acp assistant's command comes with each call, and each has a directory of
 * its own under svc's home (`agents/<name>`, its preset's state, e.g. Gemini CLI's home).
 */
export function createAgents(settings: Pick<Settings, 'claudeBin' | 'codexBin' | 'home'>): Record<AgentKind, Agent> {
  return { claude: createClaudeAgent(settings.claudeBin), codex: createCodexAgent(settings.codexBin), acp: createAcpAgent(join(settings.home, 'agents')) };
}
