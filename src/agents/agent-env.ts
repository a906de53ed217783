/**
 * Variables by which a coding agent recognises that it runs inside another agent session. svc
 * started from inside Claude Code or Codex must not pass them on, or its own agents behave as
 * nested sessions (and can hang waiting for a parent that is not there). Credentials such as
 * CLAUDE_CODE_OAUTH_TOKEN are deliberately not in this list.
 */
export const NESTED_AGENT_MARKERS = [
  'CLAUDECODE',
  'CLAUDE_CODE_ENTRYPOINT',
  'CLAUDE_CODE_SSE_PORT',
  'CLAUDE_CODE_IDE_HOST_OVERRIDE',
  'CLAUDE_AGENT_SDK_VERSION',
  'CODEX_SANDBOX',
  'CODEX_SANDBOX_NETWORK_DISABLED',
  'CODEX_THREAD_ID',
] as const;

export function agentEnvironment(base: NodeJS.ProcessEnv, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, ...extra };
  for (const key of NESTED_AGENT_MARKERS) delete env[key];
  return env;
}
