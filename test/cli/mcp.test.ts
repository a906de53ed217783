// `svc mcp` driven by the MCP SDK's own client (`Client` + `StdioClientTransport`), as a coding
// agent drives it: the built binary as a real subprocess, against a running server and with none
// (the store in its own process), and its stdout checked to carry protocol messages only.
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { mkdir, symlink } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupAll, onCleanup, tempDir, waitFor, writeWorkflows, type Json } from '../helpers/runs.js';
import { startServer } from '../helpers/runs.js';
import { runCli, SVC_BIN } from '../helpers/cli.js';
import type { TestServer } from '../helpers/server.js';
import { makeRepository } from '../helpers/git.js';

const TOOLS = ['approve_run', 'cancel_run', 'get_run', 'list_runs', 'list_workflows', 'reject_run', 'run_diff', 'start_run', 'wait_run'];

const WORKFLOWS = [
  { name: 'change', nodes: [{ id: 'edit', bash: "printf 'more\\n' >> README.md && echo edited README.md" }] },
  {
    name: 'gated',
    nodes: [
      { id: 'build', bash: 'echo built' },
      { id: 'gate', approval: { message: 'Ship it?' }, depends_on: ['build'] },
      { id: 'ship', bash: 'echo shipped', depends_on: ['gate'] },
    ],
  },
  { name: 'slow', nodes: [{ id: 'wait', bash: 'sleep 30' }] },
  { name: 'reader', permissions: 'read', nodes: [{ id: 'look', prompt: 'look around' }] },
];

/** The environment of a spawned `svc mcp`: this one without a server address, plus `env`. */
function childEnv(env: Record<string, string>): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !['SVC_URL', 'PORT', 'NODE_ENV'].includes(key)) base[key] = value;
  return { ...base, ...env };
}

interface McpSession {
  client: Client;
  stderr(): string;
}

/** Spawns `svc mcp` in `cwd` through the SDK's stdio transport and connects the SDK's client. */
async function connectMcp(cwd: string, env: Record<string, string>): Promise<McpSession> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [SVC_BIN, 'mcp'], cwd, env: childEnv(env), stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  await client.connect(transport);
  onCleanup(() => client.close());
  return { client, stderr: () => stderr };
}

/** Calls a tool; its JSON answer (or svc's error body) and whether it is a tool error. */
async function call(client: Client, name: string, args: Json = {}): Promise<{ isError: boolean; body: Json; text: string }> {
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
  const text = (result.content as Array<{ type: string; text: string }>)[0]!.text;
  return { isError: result.isError === true, body: result.structuredContent as Json, text };
}

describe('svc mcp against a running server', () => {
  let server: TestServer;
  let project: string;
  let workspaceId: string;
  let mcp: McpSession;

  beforeAll(async () => {
    server = await startServer({ socket: true });
    project = join(await tempDir('svc-mcp-'), 'project');
    await mkdir(project);
    makeRepository(project, { 'README.md': '# demo\n' });
    await writeWorkflows(project, WORKFLOWS);
    workspaceId = (await api(server, 'POST', '/api/workspaces', { path: project })).body.id;
    mcp = await connectMcp(project, { SVC_URL: server.url, SVC_HOME: server.home });
  });
  afterAll(cleanupAll);

  it('lists its tools, each with a description and a JSON schema of its input', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.description, tool.name).toMatch(/\S/);
      expect(tool.inputSchema.type, tool.name).toBe('object');
    }
    const start = tools.find((tool) => tool.name === 'start_run')!;
    expect(Object.keys(start.inputSchema.properties ?? {}).sort()).toEqual(['cwd', 'message', 'permissions', 'workflow', 'workspace']);
    expect(start.inputSchema.required).toEqual(['workflow']);
    expect((start.inputSchema.properties as Json).permissions.enum).toEqual(['read', 'edit', 'full']);
  });

  it('lists the workflows of the directory it was started in', async () => {
    const { isError, body } = await call(mcp.client, 'list_workflows');
    expect(isError).toBe(false);
    expect(body.workflows.map((w: Json) => w.name)).toEqual(expect.arrayContaining(['change', 'gated', 'slow']));
    expect(body.workflows.find((w: Json) => w.name === 'change')).toMatchObject({ description: 'test workflow change', source: 'project', nodes: 1 });
  });

  it('starts a run on a workspace, waits for it, and reads its diff (as a tool and as resources)', async () => {
    const started = await call(mcp.client, 'start_run', { workflow: 'change', message: 'add a line', workspace: workspaceId });
    expect(started.isError, started.text).toBe(false);
    expect(started.body).toMatchObject({ runId: expect.stringMatching(/^run_/) });
    const runId = started.body.runId as string;

    const waited = await call(mcp.client, 'wait_run', { runId });
    expect(waited.isError, waited.text).toBe(false);
    expect(waited.body).toMatchObject({ id: runId, workflow: 'change', status: 'completed', message: 'add a line', timedOut: false, branch: `svc/${runId}` });
    expect(waited.body.nodes).toEqual([expect.objectContaining({ id: 'edit', status: 'completed', attempts: 1 })]);
    expect(waited.body.lastOutput).toEqual([{ node: 'edit', text: 'edited README.md' }]);
    // An agent chose its values: the run says so, and its bash node ran in a sandbox.
    const recorded = (await api(server, 'GET', `/api/workflows/runs/${runId}`)).body as Json;
    expect(recorded).toMatchObject({ outside: 'mcp', trigger: 'api' });
    expect(recorded.nodes.edit).toMatchObject({ sandbox: 'on', sandboxDenied: 0 });

    const diff = await call(mcp.client, 'run_diff', { runId });
    expect(diff.isError, diff.text).toBe(false);
    expect(diff.body.files).toEqual([expect.objectContaining({ path: 'README.md', status: 'modified' })]);
    expect(diff.body.patch).toContain('+more\n');

    const { resourceTemplates } = await mcp.client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate).sort()).toEqual(['svc://runs/{id}', 'svc://runs/{id}/diff']);
    const patch = await mcp.client.readResource({ uri: `svc://runs/${runId}/diff` });
    expect(patch.contents[0]).toMatchObject({ mimeType: 'text/x-diff', text: diff.body.patch });
    const record = await mcp.client.readResource({ uri: `svc://runs/${runId}` });
    const run = JSON.parse((record.contents[0] as { text: string }).text) as Json;
    expect(run.status).toBe('completed');
    expect(run.events.map((event: Json) => event.type)).toEqual(expect.arrayContaining(['run_created', 'node_completed', 'run_completed']));
  });

  it('follows a run to its approval gate, approves it, and the run completes', async () => {
    const { body: started } = await call(mcp.client, 'start_run', { workflow: 'gated' });
    const paused = await call(mcp.client, 'wait_run', { runId: started.runId });
    expect(paused.body).toMatchObject({ status: 'paused', timedOut: false, gate: { nodeId: 'gate', message: 'Ship it?' } });

    const approved = await call(mcp.client, 'approve_run', { runId: started.runId, comment: 'looks good' });
    expect(approved.isError, approved.text).toBe(false);
    expect(approved.body.gate).toBeUndefined();
    const done = await call(mcp.client, 'wait_run', { runId: started.runId });
    expect(done.body.status).toBe('completed');
    expect(done.body.nodes.map((node: Json) => [node.id, node.status])).toEqual([
      ['build', 'completed'],
      ['gate', 'completed'],
      ['ship', 'completed'],
    ]);
    expect((await api(server, 'GET', `/api/workflows/runs/${started.runId}`)).body.nodes.gate.output).toBe('looks good');
  });

  it('rejects a gate, and cancels a run that wait_run gave up on', async () => {
    const { body: gated } = await call(mcp.client, 'start_run', { workflow: 'gated' });
    await call(mcp.client, 'wait_run', { runId: gated.runId });
    const rejected = await call(mcp.client, 'reject_run', { runId: gated.runId, reason: 'not now' });
    expect(rejected.body).toMatchObject({ status: 'cancelled' });

    const { body: slow } = await call(mcp.client, 'start_run', { workflow: 'slow' });
    const waited = await call(mcp.client, 'wait_run', { runId: slow.runId, timeoutSeconds: 1 });
    expect(waited.body).toMatchObject({ status: 'running', timedOut: true });
    const cancelled = await call(mcp.client, 'cancel_run', { runId: slow.runId });
    expect(cancelled.isError, cancelled.text).toBe(false);
    expect(cancelled.body.status).toBe('cancelled');

    const listed = await call(mcp.client, 'list_runs', { workflow: 'gated' });
    expect(listed.body.runs.map((run: Json) => run.id)).toContain(gated.runId);
    expect(listed.body.runs.every((run: Json) => run.workflow === 'gated')).toBe(true);
  });

  it("answers an unknown workflow, an unknown run and a wrong state with a tool error carrying svc's code, and keeps serving", async () => {
    const unknown = await call(mcp.client, 'start_run', { workflow: 'no-such-workflow', message: 'x' });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toMatch(/^workflow_not_found: No workflow named 'no-such-workflow'/);
    expect(unknown.body).toMatchObject({ error: 'workflow_not_found', status: 404 });

    const missing = await call(mcp.client, 'get_run', { runId: 'run_nothere' });
    expect(missing).toMatchObject({ isError: true, body: { error: 'run_not_found' } });

    const { body: done } = await call(mcp.client, 'start_run', { workflow: 'change', workspace: workspaceId });
    await call(mcp.client, 'wait_run', { runId: done.runId });
    const wrongState = await call(mcp.client, 'approve_run', { runId: done.runId });
    expect(wrongState).toMatchObject({ isError: true, body: { error: 'invalid_run_state', status: 409 } });

    // Input the schema refuses is a tool error too, not a protocol error.
    const badInput = await call(mcp.client, 'wait_run', { runId: done.runId, timeoutSeconds: 0 });
    expect(badInput.isError).toBe(true);

    expect((await call(mcp.client, 'list_runs')).isError).toBe(false);
  });

  it("refuses permissions above the workflow's, and records lower ones on the run", async () => {
    const above = await call(mcp.client, 'start_run', { workflow: 'reader', permissions: 'edit' });
    expect(above).toMatchObject({ isError: true, body: { error: 'permissions_above_workflow', status: 422 } });
    const lower = await call(mcp.client, 'start_run', { workflow: 'change', workspace: workspaceId, permissions: 'read' });
    expect(lower.isError, lower.text).toBe(false);
    expect((await call(mcp.client, 'wait_run', { runId: lower.body.runId })).body).toMatchObject({ status: 'completed', permissions: 'read' });
  });

  it('writes what a person should read to stderr', () => {
    expect(mcp.stderr()).toContain('svc mcp: serving');
  });
});

describe('svc mcp with no server', () => {
  let home: string;
  let project: string;

  beforeAll(async () => {
    home = await tempDir('svc-mcp-home-');
    project = await tempDir('svc-mcp-local-');
    await writeWorkflows(project, [
      { name: 'hello', nodes: [{ id: 'greet', bash: 'echo "hello $ARGUMENTS"' }] },
      { name: 'slow', nodes: [{ id: 'wait', bash: 'sleep 30' }] },
    ]);
  });
  afterAll(cleanupAll);

  it('runs the workflow in its own process on the store, and the run is there afterwards', async () => {
    const mcp = await connectMcp(project, { SVC_HOME: home, PORT: '1' });
    const started = await call(mcp.client, 'start_run', { workflow: 'hello', message: 'mcp' });
    expect(started.isError, started.text).toBe(false);
    const waited = await call(mcp.client, 'wait_run', { runId: started.body.runId });
    expect(waited.body).toMatchObject({ status: 'completed', lastOutput: [{ node: 'greet', text: 'hello mcp' }] });
    await mcp.client.close();

    // The session ended and released the store: a command reads the run from it.
    const listed = await runCli(['runs', 'list', '--json'], { env: { SVC_HOME: home, PORT: '1' }, cwd: project });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).runs).toEqual([expect.objectContaining({ id: started.body.runId, status: 'completed' })]);
  });

  it('prints nothing on stdout but JSON-RPC messages', async () => {
    const session = rawSession(project, { SVC_HOME: home, PORT: '1' });
    session.send({ id: 2, method: 'tools/call', params: { name: 'list_workflows', arguments: {} } });
    session.send({ id: 3, method: 'tools/call', params: { name: 'start_run', arguments: { workflow: 'hello', message: 'raw' } } });
    await session.answered(3);
    session.child.stdin.end();
    expect(await session.exited, session.stderr()).toBe(0);

    const lines = session
      .stdout()
      .split('\n')
      .filter((line) => line !== '');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) expect(JSON.parse(line), line).toMatchObject({ jsonrpc: '2.0' });
    const listed = lines.map((line) => JSON.parse(line) as Json).find((message) => message.id === 2);
    expect(JSON.parse(listed?.result.content[0].text).workflows).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'hello' })]));
    expect(listed?.result.isError).toBeUndefined();
    expect(session.stderr()).toContain('svc mcp: serving');
  });

  it('stopped by a signal, cancels the runs it executes and releases the store', async () => {
    const session = rawSession(project, { SVC_HOME: home, PORT: '1' });
    session.send({ id: 2, method: 'tools/call', params: { name: 'start_run', arguments: { workflow: 'slow' } } });
    const runId = (JSON.parse((await session.answered(2)).result.content[0].text) as { runId: string }).runId;
    session.child.kill('SIGTERM');
    expect(await session.exited, session.stderr()).toBe(0);
    expect(session.stderr()).toContain(`cancelling run ${runId}`);

    const shown = await runCli(['runs', 'show', runId, '--json'], { env: { SVC_HOME: home, PORT: '1' }, cwd: project });
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: runId, status: 'cancelled' });
  });
});

/** `svc mcp` spoken to line by line (no SDK), initialized: to see exactly what it writes on stdout. */
function rawSession(cwd: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [SVC_BIN, 'mcp'], { cwd, env: childEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  onCleanup(() => child.kill('SIGKILL'));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const send = (message: Json) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const answerTo = (id: number): Json | undefined =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Json)
      .find((message) => message.id === id);
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
  send({ method: 'notifications/initialized' });
  return {
    child,
    exited,
    send,
    stdout: () => stdout,
    stderr: () => stderr,
    /** The answer to request `id`, once it has come. */
    answered: (id: number) =>
      waitFor(
        () => answerTo(id),
        20_000,
        () => `no answer to ${id}: ${stdout}\n${stderr}`,
      ),
  };
}

describe('svc mcp --print-config', () => {
  /** A PATH whose `svc` is this checkout's, as `npm link` makes it. */
  async function linkedPath(): Promise<string> {
    const bin = await tempDir('svc-linked-bin-');
    await symlink(SVC_BIN, join(bin, 'svc'));
    return `${bin}${delimiter}${process.env.PATH ?? ''}`;
  }
  const withoutSvc = { PATH: dirname(process.execPath) };

  it('prints how to register svc with Claude Code: the claude mcp add command and a .mcp.json, as `svc mcp` when svc on PATH is this one', async () => {
    const result = await runCli(['mcp', '--print-config', 'claude'], { env: { PATH: await linkedPath() } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('\nclaude mcp add --scope user svc -- svc mcp\n');
    const json = result.stdout.slice(result.stdout.indexOf('{'));
    expect(JSON.parse(json)).toEqual({ mcpServers: { svc: { command: 'svc', args: ['mcp'] } } });
  });

  it("prints codex's [mcp_servers.svc] table, valid TOML to append to config.toml", async () => {
    const result = await runCli(['mcp', '--print-config', 'codex'], { env: { PATH: await linkedPath() } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('# Codex: add this to ~/.codex/config.toml\n[mcp_servers.svc]\ncommand = "svc"\nargs = ["mcp"]\n');
  });

  it('without svc on PATH prints node and the absolute path of this installation, a command that starts the MCP server', async () => {
    const result = await runCli(['mcp', '--print-config', 'claude'], { env: withoutSvc });
    expect(result.code, result.stderr).toBe(0);
    const { command, args } = JSON.parse(result.stdout.slice(result.stdout.indexOf('{'))).mcpServers.svc;
    expect(command).toBe(process.execPath);
    expect(args).toEqual([realpathSync(SVC_BIN), 'mcp']);
    expect(result.stdout).toContain(`claude mcp add --scope user svc -- ${process.execPath} ${realpathSync(SVC_BIN)} mcp\n`);
    const codex = await runCli(['mcp', '--print-config', 'codex'], { env: withoutSvc });
    expect(codex.stdout).toContain(`command = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(realpathSync(SVC_BIN))}, "mcp"]\n`);
    // What it printed, run as an agent would (its own PATH, no svc on it): svc's MCP server answers.
    const server = await startServer({ socket: true });
    const transport = new StdioClientTransport({
      command,
      args,
      cwd: await tempDir('svc-mcp-printed-'),
      env: childEnv({ ...withoutSvc, SVC_URL: server.url }),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'svc-test', version: '1.0.0' });
    await client.connect(transport);
    onCleanup(() => client.close());
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
  });

  it('refuses an agent it does not know with a usage error', async () => {
    const result = await runCli(['mcp', '--print-config', 'cursor']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--print-config takes claude or codex');
    expect(result.stdout).toBe('');
  });
});
