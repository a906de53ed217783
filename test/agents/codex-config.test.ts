// Codex's model provider key read from its own config.toml, and the hint an agent's failure gets
// when it names a variable the least-privilege environment withheld (issue 29).
import { describe, expect, it } from 'vitest';
import { withheldVariableHint } from '../../src/agents/agent-env.js';
import { codexProviderKeyEnv, parseToml } from '../../src/agents/codex-config.js';

describe('codexProviderKeyEnv', () => {
  it("the top-level model_provider's env_key", () => {
    const toml = [
      '# my codex',
      'model = "gpt-5"',
      'model_provider = "azure"   # the company one',
      '',
      '[model_providers.azure]',
      'name = "Azure"',
      'base_url = "https://example.openai.azure.com/openai"',
      'env_key = "AZURE_OPENAI_API_KEY"',
      'query_params = { api-version = "2025-04-01-preview" }',
      'request_max_retries = 4',
    ].join('\n');
    expect(codexProviderKeyEnv(toml)).toBe('AZURE_OPENAI_API_KEY');
  });

  it("the selected profile's model_provider wins over the top-level one", () => {
    const toml = [
      'model_provider = "azure"',
      'profile = "local"',
      '[profiles.local]',
      'model_provider = "gateway"',
      '[profiles.other]',
      'model_provider = "azure"',
      '[model_providers.azure]',
      'env_key = "AZURE_OPENAI_API_KEY"',
      '[model_providers.gateway]',
      "env_key = 'GATEWAY_KEY'",
    ].join('\n');
    expect(codexProviderKeyEnv(toml)).toBe('GATEWAY_KEY');
    // A profile without a provider of its own leaves the top-level one.
    expect(codexProviderKeyEnv(toml.replace('model_provider = "gateway"', 'model = "o3"'))).toBe('AZURE_OPENAI_API_KEY');
  });

  it('dotted keys, quoted names and inline tables', () => {
    expect(codexProviderKeyEnv('model_provider = "gw"\nmodel_providers.gw.env_key = "GW_KEY"\n')).toBe('GW_KEY');
    expect(codexProviderKeyEnv('model_provider = "my gw"\n[model_providers."my gw"]\nenv_key = "MY_GW_KEY"\n')).toBe('MY_GW_KEY');
    expect(codexProviderKeyEnv('model_provider = "gw"\n[model_providers]\ngw = { name = "GW", env_key = "INLINE_KEY" }\n')).toBe('INLINE_KEY');
  });

  it('is not fooled by a multi-line string or an array holding what looks like a header', () => {
    const toml = [
      'model_provider = "real"',
      'instructions = """',
      '[model_providers.real]',
      'env_key = "FAKE_FROM_STRING"',
      '"""',
      "notes = '''",
      'model_provider = "other"',
      "'''",
      'list = [',
      '  "[model_providers.real]", # a comment',
      '  1, 2.5, true, 1979-05-27T07:32:00Z,',
      ']',
      '[model_providers.real]',
      'env_key = "REAL_KEY"',
    ].join('\n');
    expect(codexProviderKeyEnv(toml)).toBe('REAL_KEY');
    expect(parseToml(toml).instructions).toBe('[model_providers.real]\nenv_key = "FAKE_FROM_STRING"\n');
  });

  it('none: no provider, a built-in one, no env_key, a name that is not a variable, a file codex would refuse', () => {
    expect(codexProviderKeyEnv('')).toBeNull();
    expect(codexProviderKeyEnv('model = "gpt-5"\n')).toBeNull();
    expect(codexProviderKeyEnv('model_provider = "oss"\n')).toBeNull();
    expect(codexProviderKeyEnv('model_provider = "gw"\n[model_providers.gw]\nbase_url = "http://127.0.0.1:8080/v1"\n')).toBeNull();
    expect(codexProviderKeyEnv('model_provider = "gw"\n[model_providers.gw]\nenv_key = "NOT A NAME"\n')).toBeNull();
    expect(codexProviderKeyEnv('model_provider = "gw"\n[model_providers.gw\nenv_key = "GW_KEY"\n')).toBeNull();
    expect(codexProviderKeyEnv('model_provider = "gw"\nmodel_provider = "other"\n')).toBeNull();
  });

  it('reads escapes in basic strings', () => {
    expect(parseToml('a = "tab\\there \\u00e9 \\"q\\""\n').a).toBe('tab\there é "q"');
    expect(parseToml('a = """\nx\\\n    y""""\n').a).toBe('xy"');
  });
});

describe('withheldVariableHint', () => {
  const server = { VAULT_TOKEN: 'v', PATH: '/bin', AZURE_KEY: 'k' };

  it('names a variable the server has and the agent was not given, with both ways to allow it', () => {
    const hint = withheldVariableHint('Missing environment variable: `AZURE_KEY`.', server, { PATH: '/bin' });
    expect(hint).toBe(
      "AZURE_KEY is withheld from agents (least-privilege environment): allow it with SVC_AGENT_ENV_ALLOW=AZURE_KEY in the server's environment, or env: { allow: [AZURE_KEY] } in the workflow or the node",
    );
    expect(withheldVariableHint('could not read VAULT_TOKEN', server, { PATH: '/bin' })).toContain('SVC_AGENT_ENV_ALLOW=VAULT_TOKEN');
  });

  it('a missing variable the server lacks too: set it where svc runs', () => {
    expect(withheldVariableHint('Missing environment variable: `NOWHERE_KEY`.', server, {})).toBe(
      "NOWHERE_KEY is not set in the server's environment either: set it where svc runs (agents get only what the server has and allows)",
    );
  });

  it('nothing for variables the agent has, or for a message naming none', () => {
    expect(withheldVariableHint('PATH is broken', server, { PATH: '/bin' })).toBeNull();
    expect(withheldVariableHint('Missing environment variable: `AZURE_KEY`.', server, { AZURE_KEY: 'k' })).toBeNull();
    expect(withheldVariableHint('API Error: 400 bad request', server, {})).toBeNull();
  });
});
