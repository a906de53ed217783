/**
 * Coding agents as subprocesses: Claude Code and Codex behind one `Agent` interface, the JSON-lines
 * process runner, their tool calls, usage limits, the least-privilege environment and agent slots.
 */
import type { AssistantName } from '../config/index.js';
import type { Settings } from '../shared/settings.js';
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
export { AgentError, type Agent, type AgentEndpoint, type AgentErrorCode, type AgentRequest, type AgentResult, type AgentTokens } from './types.js';

/** The agents by name, with executables from the settings (`SVC_CLAUDE_BIN`, `SVC_CODEX_BIN`). */
export function createAgents(settings: Pick<Settings, 'claudeBin' | 'codexBin'>): Record<AssistantName, Agent> {
  return { claude: createClaudeAgent(settings.claudeBin), codex: createCodexAgent(settings.codexBin) };
}
