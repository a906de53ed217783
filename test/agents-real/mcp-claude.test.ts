// The real Claude Code CLI (pinned devDependency) given svc as an MCP server, as a user registers
// it (docs/mcp.md): `--mcp-config` naming `svc mcp` and an allow rule for its tools, against a
// local stand-in of the model API whose first answer is a tool_use of `mcp__svc__start_run`.
// The run exists in svc afterwards, and the tool result reached the model as a result, not an
// error. Offline: a fresh HOME, and proxy variables pointing at a trap no request may reach.
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupAll, type Json, onCleanup, startServer, tempDir, waitForRun, writeWorkflows } from '../helpers/runs.js';
import { SVC_BIN } from '../helpers/cli.js';
import type { TestServer } from '../helpers/server.js';
import { claudeOfferedTools, claudeToolResults, startClaudeToolStandIn, startNetworkTrap, type NetworkTrap, type StandIn } from '../support/model-standins.js';
import { offlineAgentEnv, REAL_CLAUDE } from '../support/real-agents.js';

let server: TestServer;
let project: string;
let trap: NetworkTrap;

beforeAll(async () => {
  server = await startServer({ socket: true });
  project = realpathSync(await tempDir('svc-mcp-claude-'));
  await writeWorkflows(project, [{ name: 'hello', nodes: [{ id: 'greet', bash: 'echo "hello $ARGUMENTS"' }] }]);
  trap = await startNetworkTrap();
  onCleanup(() => trap.close());
}, 60_000);
afterAll(cleanupAll);

/** Runs `claude -p` in the project with svc registered, against a stand-in of its own; its exit code, output and model. */
async function runClaude(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; model: StandIn }> {
  const model = await startClaudeToolStandIn({ name: 'mcp__svc__start_run', input: { workflow: 'hello', message: 'from claude' }, finalText: 'STARTED' });
  onCleanup(() => model.close());
  const home = await tempDir('svc-mcp-claude-home-');
  const config = join(home, 'mcp.json');
  // What `svc mcp --print-config claude` registers, with this checkout's binary and the test server.
  await writeFile(
    config,
    JSON.stringify({ mcpServers: { svc: { command: process.execPath, args: [SVC_BIN, 'mcp'], env: { SVC_URL: server.url, SVC_HOME: server.home } } } }),
  );
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !['SVC_URL', 'PORT', 'NODE_ENV'].includes(key)) env[key] = value;
  Object.assign(env, await offlineAgentEnv(home, trap), {
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: 'sk-standin-not-a-real-key',
    // Claude Code 2.1.x holds MCP tools back behind its ToolSearch tool otherwise.
    ENABLE_TOOL_SEARCH: 'false',
  });
  const child = spawn(
    REAL_CLAUDE,
    ['-p', 'Start the hello workflow in svc.', '--output-format', 'json', '--mcp-config', config, '--strict-mcp-config', ...args],
    {
      cwd: project,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  return { code, stdout, stderr, model };
}

const resultText = (result: Json): string =>
  typeof result.content === 'string' ? result.content : (result.content as Json[]).map((part) => (part.type === 'text' ? part.text : '')).join('');

describe('Claude Code with svc as its MCP server', () => {
  it('starts a run through mcp__svc__start_run: the run exists in svc and the model got its id', async () => {
    const claude = await runClaude(['--allowedTools', 'mcp__svc__*']);
    const { model } = claude;
    expect(claude.code, `${claude.stdout}\n${claude.stderr}`).toBe(0);
    expect(JSON.parse(claude.stdout)).toMatchObject({ type: 'result', is_error: false, result: 'STARTED' });

    // svc's tools were offered to the model under Claude Code's MCP names.
    expect(claudeOfferedTools(model).some((tools) => tools.includes('mcp__svc__start_run') && tools.includes('mcp__svc__wait_run'))).toBe(true);
    const results = claudeToolResults(model);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ tool_use_id: 'toolu_standin_1' });
    expect(results[0]!.is_error ?? false, resultText(results[0]!)).toBe(false);
    const { runId } = JSON.parse(resultText(results[0]!)) as { runId: string };
    expect(runId).toMatch(/^run_/);

    const run = await waitForRun(server, runId);
    expect(run).toMatchObject({ workflow: 'hello', message: 'from claude', status: 'completed', cwd: project });
    expect(run.nodes.greet.output).toBe('hello from claude');
    expect(trap.attempts, 'requests that would have left the machine').toEqual([]);
  }, 120_000);

  it('without an allow rule, the call is refused and no run is started', async () => {
    const before = (await api(server, 'GET', '/api/workflows/runs?workflow=hello')).body.total;
    const claude = await runClaude([]);
    expect(claude.code, `${claude.stdout}\n${claude.stderr}`).toBe(0);
    const results = claudeToolResults(claude.model);
    expect(results).toHaveLength(1);
    expect(results[0]!.is_error).toBe(true);
    expect((await api(server, 'GET', '/api/workflows/runs?workflow=hello')).body.total).toBe(before);
    expect(trap.attempts, 'requests that would have left the machine').toEqual([]);
  }, 120_000);
});
