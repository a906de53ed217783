/**
 * The ACP agents svc knows by name (docs/decisions.md, "ACP agents"): what a preset fills in of an
 * assistant's configuration — its command, the variables that are its own (so the least-privilege
 * environment lets them through), and how the model, the endpoint and its key reach it. Pure: the
 * agent applies what `presetLaunch` answers when it starts one.
 */

export const ACP_PRESETS = ['gemini', 'opencode'] as const;
export type AcpPreset = (typeof ACP_PRESETS)[number];

/** What an acp assistant is started with beyond its configured command and `env`. */
export interface PresetLaunch {
  /** Appended to the command (the model, where the agent takes it on its command line). */
  args: string[];
  /** Set in its environment, over the server's and the configured `env`. */
  env: Record<string, string>;
}

/** What `presetLaunch` is told: the assistant's model and endpoint, its key's value, and a directory of its own. */
export interface PresetInput {
  model: string | null;
  baseUrl: string | null;
  /** The value of the variable `apiKeyEnv` names, in the server's environment; never stored. */
  key: string | undefined;
  /** The name of that variable, for an agent that reads it itself (opencode's `{env:NAME}`). */
  keyEnv: string | null;
  /** A directory of the assistant's own under svc's home, for an agent that keeps state. */
  home: string;
}

interface Preset {
  command: readonly string[];
  /** Names (or `PREFIX_*`) of the server's variables the agent gets, as claude gets `ANTHROPIC_*`. */
  ownEnv: readonly string[];
  launch(input: PresetInput): PresetLaunch;
  /**
   * The hosts its model traffic goes to when the assistant has no `baseUrl` (its vendor's own API):
   * what its OS sandbox lets it reach (docs/decisions.md, "ACP agents": in svc's OS sandbox). `env` is the
   * agent's environment, as it starts.
   */
  apiHosts(env: Readonly<Record<string, string | undefined>>): string[];
  /** The directories it keeps its state in (sessions, settings, logs): writable in its sandbox. */
  stateDirs(env: Readonly<Record<string, string | undefined>>): string[];
}

const under = (dir: string | undefined, ...parts: string[]) => (dir ? [dir, ...parts].join('/') : undefined);

const PRESETS: Record<AcpPreset, Preset> = {
  // Gemini CLI 0.61 (measured, shared notes §11): `GOOGLE_GEMINI_BASE_URL` selects its gateway auth by
  // itself, the key goes as `GEMINI_API_KEY`; its relauncher ignores SIGTERM, so it runs without one;
  // `GEMINI_CLI_HOME` keeps its sessions and settings in svc's home rather than the user's ~/.gemini.
  gemini: {
    command: ['gemini', '--acp'],
    // Its own `GEMINI_*`, and of Google's only the names it reads for its model and credentials — the
    // ones it forwards into a sandbox of its own (0.61.0's bundle): not every `GOOGLE_*` of the server.
    ownEnv: [
      'GEMINI_*',
      'GOOGLE_API_KEY',
      'GOOGLE_GEMINI_BASE_URL',
      'GOOGLE_VERTEX_BASE_URL',
      'GOOGLE_GENAI_USE_VERTEXAI',
      'GOOGLE_GENAI_USE_GCA',
      'GOOGLE_CLOUD_PROJECT',
      'GOOGLE_CLOUD_PROJECT_ID',
      'GOOGLE_CLOUD_LOCATION',
      'GOOGLE_APPLICATION_CREDENTIALS',
    ],
    // The Gemini API (a key), Code Assist and its OAuth tokens (a Google login), Vertex AI (global,
    // and the region GOOGLE_CLOUD_LOCATION names), as 0.61.0 calls them.
    apiHosts: (env) => [
      'generativelanguage.googleapis.com',
      'cloudcode-pa.googleapis.com',
      'oauth2.googleapis.com',
      'aiplatform.googleapis.com',
      ...(env.GOOGLE_CLOUD_LOCATION && /^[a-z0-9-]+$/.test(env.GOOGLE_CLOUD_LOCATION) ? [`${env.GOOGLE_CLOUD_LOCATION}-aiplatform.googleapis.com`] : []),
    ],
    stateDirs: (env) => [env.GEMINI_CLI_HOME].filter((dir): dir is string => Boolean(dir)),
    launch: ({ model, baseUrl, key, home }) => ({
      args: model ? ['-m', model] : [],
      env: {
        GEMINI_CLI_NO_RELAUNCH: '1',
        GEMINI_CLI_HOME: home,
        ...(baseUrl ? { GOOGLE_GEMINI_BASE_URL: baseUrl } : {}),
        ...(key ? { GEMINI_API_KEY: key } : {}),
      },
    }),
  },
  // opencode asks nothing unless told to: `permission: ask` for edits and commands makes each one
  // reach svc's decision. Its documentation (not a run of the real CLI: docs/decisions.md) says a
  // project's own configuration (`opencode.json`, `.opencode/`: agents, plugins, MCP servers) is
  // merged after OPENCODE_CONFIG_CONTENT and wins, so a repository could allow itself everything or
  // run code: OPENCODE_DISABLE_PROJECT_CONFIG keeps it out, and OPENCODE_PERMISSION, merged last,
  // says the permissions again. An endpoint is an OpenAI-compatible provider named `svc`, its key
  // read by opencode from the variable `apiKeyEnv` names (which the agent is given).
  opencode: {
    command: ['opencode', 'acp'],
    ownEnv: ['OPENCODE_*'],
    // Its providers' APIs (Anthropic, OpenAI, Google, OpenRouter, its own Zen) and its model list.
    apiHosts: () => ['api.anthropic.com', 'api.openai.com', 'generativelanguage.googleapis.com', 'openrouter.ai', 'opencode.ai', 'models.dev'],
    // Its data (sessions, logins), state and cache, under the XDG directories.
    stateDirs: (env) =>
      [
        under(env.XDG_DATA_HOME ?? under(env.HOME, '.local', 'share'), 'opencode'),
        under(env.XDG_STATE_HOME ?? under(env.HOME, '.local', 'state'), 'opencode'),
        under(env.XDG_CACHE_HOME ?? under(env.HOME, '.cache'), 'opencode'),
      ].filter((dir): dir is string => Boolean(dir)),
    launch: ({ model, baseUrl, keyEnv }) => {
      const permission = { edit: 'ask', bash: 'ask', webfetch: 'ask' };
      const config: Record<string, unknown> = { permission };
      if (baseUrl) {
        config.provider = {
          svc: {
            npm: '@ai-sdk/openai-compatible',
            options: { baseURL: baseUrl, ...(keyEnv ? { apiKey: `{env:${keyEnv}}` } : {}) },
            models: model ? { [model]: {} } : {},
          },
        };
        if (model) config.model = `svc/${model}`;
      } else if (model) config.model = model;
      return {
        args: [],
        env: { OPENCODE_CONFIG_CONTENT: JSON.stringify(config), OPENCODE_DISABLE_PROJECT_CONFIG: '1', OPENCODE_PERMISSION: JSON.stringify(permission) },
      };
    },
  },
};

/** The command a preset fills in when the configuration gives none. */
export const presetCommand = (preset: AcpPreset): string[] => [...PRESETS[preset].command];

/** The server's variables the preset's agent gets (none for an assistant without a preset). */
export const presetOwnEnv = (preset: AcpPreset | null | undefined): readonly string[] => (preset ? PRESETS[preset].ownEnv : []);

/** The hosts of the preset's vendor APIs, for an assistant without a `baseUrl`; none without a preset. */
export const presetApiHosts = (preset: AcpPreset | null | undefined, env: Readonly<Record<string, string | undefined>>): string[] =>
  preset ? PRESETS[preset].apiHosts(env) : [];

/** The preset's state directories in the agent's environment `env`; none without a preset. */
export const presetStateDirs = (preset: AcpPreset | null | undefined, env: Readonly<Record<string, string | undefined>>): string[] =>
  preset ? PRESETS[preset].stateDirs(env) : [];

/** What the preset adds to a start; an assistant without one gets nothing added (its model is its command's business). */
export const presetLaunch = (preset: AcpPreset | null | undefined, input: PresetInput): PresetLaunch =>
  preset ? PRESETS[preset].launch(input) : { args: [], env: {} };
