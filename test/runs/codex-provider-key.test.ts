// A codex provider of the user's own (Azure, a local gateway) names its key in codex's config.toml
// (`env_key`): svc passes that variable to codex as its own key, and an agent failure naming a
// variable the agent was not given says how to allow it (issue 29; docs/decisions.md, Agents).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FAKE_CODEX } from '../helpers/conversations.js';
import type { TestServer } from '../helpers/server.js';
import {
  cleanupAll,
  type Json,
  projectWithWorkflows as makeProject,
  readJsonLines,
  setProcessEnv,
  startRun,
  startServer,
  tempDir,
  waitForRun,
} from '../helpers/runs.js';

let server: TestServer;
let project: string;
let codexLog: string;
let codexHome: string;

const runOf = async (workflow: string) => waitForRun(server, await startRun(server, workflow, { message: '', cwd: project }));
const codexCall = (marker: string): Json => readJsonLines(codexLog).find((call) => String(call.stdin).includes(marker))!;

beforeAll(async () => {
  const dir = await tempDir('svc-codex-key-');
  codexLog = join(dir, 'codex.jsonl');
  codexHome = join(dir, 'codex-home');
  await mkdir(codexHome);
  project = await makeProject([
    { name: 'gateway', nodes: [{ id: 'ask', assistant: 'codex', prompt: 'through the gateway' }] },
    { name: 'vault', nodes: [{ id: 'needs', prompt: 'needs a secret [fake:fail=Error: VAULT_TOKEN_T is not set; cannot reach the vault]' }] },
    {
      name: 'vault-allowed',
      nodes: [
        { id: 'needs', prompt: 'allowed a secret [fake:fail=Error: VAULT_TOKEN_T is not set; cannot reach the vault]', env: { allow: ['VAULT_TOKEN_T'] } },
      ],
    },
  ]);
  setProcessEnv({ FAKE_CODEX_LOG: codexLog, CODEX_HOME: codexHome, VAULT_TOKEN_T: 'vault-secret' });
  server = await startServer({ env: { SVC_CODEX_BIN: FAKE_CODEX } });
});
afterAll(cleanupAll);

/** codex's config.toml: the active provider (chosen by a profile) names its key in env_key. */
const writeCodexConfig = (envKey: string) =>
  writeFile(
    join(codexHome, 'config.toml'),
    [
      'model_provider = "openai"',
      'profile = "work"',
      '',
      '[profiles.work]',
      'model_provider = "gateway"',
      '',
      '[model_providers.gateway]',
      'name = "Local gateway"',
      'base_url = "http://127.0.0.1:9/v1"',
      `env_key = "${envKey}"`,
      '',
    ].join('\n'),
  );

it("passes the provider's env_key variable to codex as its own key", async () => {
  await writeCodexConfig('GATEWAY_KEY_T');
  setProcessEnv({ GATEWAY_KEY_T: 'gateway-secret' });
  const run = await runOf('gateway');
  expect(run.status).toBe('completed');
  expect(run.nodes.ask.output).toBe('fake codex reply: through the gateway');
  expect(codexCall('through the gateway').envKeys).toContain('GATEWAY_KEY_T');
  // Its own key, in the agent's base set as OPENAI_API_KEY is: not a name given beyond it.
  expect(run.nodes.ask.envGiven).not.toContain('GATEWAY_KEY_T');
});

it('a provider key the server does not have: the failure says to set it where svc runs', async () => {
  await writeCodexConfig('ABSENT_GATEWAY_KEY_T');
  const run = await runOf('gateway');
  expect(run.nodes.ask).toMatchObject({ status: 'failed', errorCode: 'agent_failed' });
  expect(run.nodes.ask.error).toContain('Missing environment variable: `ABSENT_GATEWAY_KEY_T`.');
  expect(run.nodes.ask.error).toContain("ABSENT_GATEWAY_KEY_T is not set in the server's environment either");
});

it('an agent failing on a variable it was not given: the error says how to allow it', async () => {
  const run = await runOf('vault');
  expect(run.nodes.needs.status).toBe('failed');
  expect(run.nodes.needs.error).toContain('VAULT_TOKEN_T is not set; cannot reach the vault');
  expect(run.nodes.needs.error).toContain('allow it with SVC_AGENT_ENV_ALLOW=VAULT_TOKEN_T');
  expect(run.nodes.needs.error).toContain('env: { allow: [VAULT_TOKEN_T] }');
  expect(run.nodes.needs.error).not.toContain('vault-secret');
  // Allowed, the same failure has nothing to suggest.
  const allowed = await runOf('vault-allowed');
  expect(allowed.nodes.needs.error).toBe('claude failed (error_during_execution): Error: VAULT_TOKEN_T is not set; cannot reach the vault');
});
