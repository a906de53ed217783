import { ENV_NAME_PATTERN } from '../shared/settings.js';

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

/**
 * What every process with a withheld environment gets from the server's (docs/contract.md, "Least-privilege environment"): where programs and the user's files are, the locale,
 * the terminal, the time zone, the temporary directory, the proxies and the certificates to
 * trust. A name ending in `*` stands for every name with that prefix.
 */
export const BASE_ENV = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'LC_*',
  'TERM',
  'COLORTERM',
  'TZ',
  'TMPDIR',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'XDG_STATE_HOME',
  'XDG_RUNTIME_DIR',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'no_proxy',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
] as const;

/**
 * What each agent needs beyond `BASE_ENV` to authenticate and find its configuration: Claude
 * Code's key, token, endpoint and config directory, its own switches (`CLAUDE_CODE_*`, the
 * `DISABLE_*` telemetry and update switches, `IS_SANDBOX`); Codex's OpenAI key and endpoint and
 * `CODEX_HOME`. The variable an assistant's endpoint names (`apiKeyEnv`) is added per call.
 */
export const AGENT_AUTH_ENV: Readonly<Record<'claude' | 'codex', readonly string[]>> = {
  claude: ['ANTHROPIC_*', 'CLAUDE_CONFIG_DIR', 'CLAUDE_CODE_*', 'DISABLE_*', 'IS_SANDBOX'],
  codex: ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_ORGANIZATION', 'OPENAI_PROJECT', 'CODEX_HOME', 'CODEX_API_KEY'],
};

export { ENV_NAME_PATTERN };

function matches(name: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => (pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern));
}

export interface WithheldEnvRequest {
  /** The server's environment, the only source of the base set and of allowed names. */
  server: NodeJS.ProcessEnv;
  /** The agent the process is (its authentication variables join the base set); none for a bash node. */
  assistant?: 'claude' | 'codex';
  /** An acp agent's own variables (its preset's, config/acp-presets.ts), which join the base set as claude's do. */
  agentEnv?: readonly string[];
  /** The endpoint's key variable (`apiKeyEnv`), part of the agent's base set. */
  apiKeyEnv?: string | null;
  /** Names (or `PREFIX_*`) taken from the server's environment beyond the base set. */
  allow?: readonly string[];
  /** Values given outright: the workspace's env values, then the run's variables (later wins). */
  given?: Readonly<Record<string, string>>;
}

/**
 * The environment of a process that does not inherit the server's: the base set (with the
 * agent's own), the allowed names the server has, and the given values. `given` lists, sorted,
 * the names it holds beyond the base set — what the run detail shows (names, never values).
 */
export function withheldEnvironment(request: WithheldEnvRequest): { env: NodeJS.ProcessEnv; given: string[] } {
  const base: string[] = [...BASE_ENV, ...(request.assistant ? AGENT_AUTH_ENV[request.assistant] : []), ...(request.agentEnv ?? [])];
  if (request.apiKeyEnv) base.push(request.apiKeyEnv);
  const allow = request.allow ?? [];
  const env: NodeJS.ProcessEnv = {};
  const given = new Set<string>();
  for (const [name, value] of Object.entries(request.server)) {
    if (value === undefined) continue;
    if (matches(name, base)) env[name] = value;
    else if (matches(name, allow)) {
      env[name] = value;
      given.add(name);
    }
  }
  for (const [name, value] of Object.entries(request.given ?? {})) {
    env[name] = value;
    if (!matches(name, base)) given.add(name);
  }
  for (const key of NESTED_AGENT_MARKERS) {
    delete env[key];
    given.delete(key);
  }
  return { env, given: [...given].sort() };
}

// Codex's own wording when its provider's `env_key` variable is not in its environment (0.169.0:
// "Missing environment variable: `AZURE_OPENAI_API_KEY`."), and the like from other CLIs.
const MISSING_VARIABLE = /missing (?:environment )?variable:?\s*[`'"]?([A-Za-z_][A-Za-z0-9_]*)/i;

/**
 * What to add to an agent's failure that names a variable it was not given (issue 29): how to
 * allow it, in the settings' own spelling, or — a variable the agent asked for that the server
 * has not either — that it must be set where svc runs. Names are only those the message spells
 * out; a value is never shown. Null when the message names none.
 */
export function withheldVariableHint(message: string, server: NodeJS.ProcessEnv, given: NodeJS.ProcessEnv): string | null {
  const named = new Set(message.match(/\b[A-Z][A-Z0-9_]*[A-Z0-9]\b/g) ?? []);
  const missing = MISSING_VARIABLE.exec(message)?.[1];
  if (missing) named.add(missing);
  const withheld = [...named].filter((name) => server[name] !== undefined && given[name] === undefined).sort();
  if (withheld.length > 0) {
    const list = withheld.join(',');
    return (
      `${withheld.join(', ')} ${withheld.length === 1 ? 'is' : 'are'} withheld from agents (least-privilege environment): allow ` +
      `${withheld.length === 1 ? 'it' : 'them'} with SVC_AGENT_ENV_ALLOW=${list} in the server's environment, or env: { allow: [${withheld.join(', ')}] } in the workflow or the node`
    );
  }
  if (missing && server[missing] === undefined && given[missing] === undefined) {
    return `${missing} is not set in the server's environment either: set it where svc runs (agents get only what the server has and allows)`;
  }
  return null;
}
