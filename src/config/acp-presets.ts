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
}

const PRESETS: Record<AcpPreset, Preset> = {
  // Gemini CLI 0.61 (measured, shared notes §11): `GOOGLE_GEMINI_BASE_URL` selects its gateway auth by
  // itself, the key goes as `GEMINI_API_KEY`; its relauncher ignores SIGTERM, so it runs without one;
  // `GEMINI_CLI_HOME` keeps its sessions and settings in svc's home rather than the user's ~/.gemini.
  gemini: {
    command: ['gemini', '--acp'],
    ownEnv: ['GEMINI_*', 'GOOGLE_*'],
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
  // reach svc's decision. An endpoint is an OpenAI-compatible provider named `svc`, its key read by
  // opencode from the variable `apiKeyEnv` names (which the agent is given).
  opencode: {
    command: ['opencode', 'acp'],
    ownEnv: ['OPENCODE_*'],
    launch: ({ model, baseUrl, keyEnv }) => {
      const config: Record<string, unknown> = { permission: { edit: 'ask', bash: 'ask', webfetch: 'ask' } };
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
      return { args: [], env: { OPENCODE_CONFIG_CONTENT: JSON.stringify(config) } };
    },
  },
};

/** The command a preset fills in when the configuration gives none. */
export const presetCommand = (preset: AcpPreset): string[] => [...PRESETS[preset].command];

/** The server's variables the preset's agent gets (none for an assistant without a preset). */
export const presetOwnEnv = (preset: AcpPreset | null | undefined): readonly string[] => (preset ? PRESETS[preset].ownEnv : []);

/** What the preset adds to a start; an assistant without one gets nothing added (its model is its command's business). */
export const presetLaunch = (preset: AcpPreset | null | undefined, input: PresetInput): PresetLaunch =>
  preset ? PRESETS[preset].launch(input) : { args: [], env: {} };
