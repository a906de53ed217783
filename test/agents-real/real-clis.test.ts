// The real Claude Code and Codex CLIs (pinned devDependencies) driven by svc, offline, against a
// local stand-in of each model API that answers with tool calls (docs/decisions.md, "Agent tests"): a
// prompt node on a workspace with `permissions: edit` leaves the agent's files in the run's
// worktree, committed as the node's commit on svc/<runId> and listed by the run's diff; with
// `read` it leaves none, and the CLI told the model its calls were refused. Either way each call
// is an `agent_tool` event, seen live by an SSE client and kept with the run's events, and counted
// on the node ("Tool activity", "A commit per node"). Every test has a fresh HOME, and proxy
// variables pointing at a trap that no request may reach.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { TestServer } from '../helpers/server.js';
import { connect } from '../helpers/sse-client.js';
import { api, cleanupAll, type Json, onCleanup, setProcessEnv, startRun, startServer, tempDir, waitForRun } from '../helpers/runs.js';
import {
  claudeToolResults,
  codexCallOutputs,
  startClaudeStandIn,
  startCodexStandIn,
  startNetworkTrap,
  type NetworkTrap,
  type StandIn,
} from '../support/model-standins.js';
import { offlineAgentEnv, offlineAgentPerTest, REAL_CLAUDE, REAL_CODEX } from '../support/real-agents.js';
import { makeRepository } from '../helpers/git.js';

const KEY_ENV = 'SVC_TEST_STANDIN_KEY';
const CLAUDE_BASH = 'sleep 1; echo ran > claude-ran.txt';
const CODEX_COMMAND = 'sleep 1; echo ran > codex-ran.txt';
const node = (id: string, assistant: 'claude' | 'codex', permissions: string) => ({
  name: `${assistant}-${permissions}`,
  description: `one ${assistant} node with permissions ${permissions}`,
  nodes: [{ id, assistant, permissions, prompt: 'Create the file the task needs: $ARGUMENTS' }],
});
const WORKFLOWS = ['read', 'edit', 'full'].flatMap((permissions) => [node('change', 'claude', permissions), node('change', 'codex', permissions)]);

let server: TestServer;
let workspaceId: string;
let claude: StandIn;
let codex: StandIn;
let trap: NetworkTrap;

beforeAll(async () => {
  // The workflows are committed in the repository: each run's worktree starts clean.
  const repo = realpathSync(await tempDir('svc-real-repo-'));
  await mkdir(join(repo, '.svc', 'workflows'), { recursive: true });
  for (const workflow of WORKFLOWS) await writeFile(join(repo, '.svc', 'workflows', `${workflow.name}.yaml`), stringify(workflow));
  makeRepository(repo, { 'README.md': '# demo\n' });

  claude = await startClaudeStandIn({
    write: { path: 'claude-wrote.txt', content: 'written by the real claude\n' },
    bash: CLAUDE_BASH,
    finalText: 'DONE',
  });
  // A command that runs a moment before it writes: codex's --json often leaves out one its sandbox refuses at once.
  codex = await startCodexStandIn({ command: CODEX_COMMAND, finalText: 'DONE' });
  trap = await startNetworkTrap();
  onCleanup(() => Promise.all([claude.close(), codex.close(), trap.close()]));

  setProcessEnv({ [KEY_ENV]: 'sk-standin-not-a-real-key', IS_SANDBOX: '' });
  server = await startServer({ socket: true, env: { SVC_CLAUDE_BIN: REAL_CLAUDE, SVC_CODEX_BIN: REAL_CODEX } });
  // The model endpoints as a user configures them: Claude Code adds /v1/messages, codex /responses.
  const configured = await api(server, 'PATCH', '/api/config/assistants', {
    claude: { baseUrl: claude.url, apiKeyEnv: KEY_ENV },
    codex: { baseUrl: `${codex.url}/v1`, apiKeyEnv: KEY_ENV, model: 'gpt-5' },
  });
  expect(configured.status).toBe(200);
  const registered = await api(server, 'POST', '/api/workspaces', { path: repo });
  expect(registered.status).toBe(201);
  workspaceId = registered.body.id;
}, 60_000);
afterAll(cleanupAll);

offlineAgentPerTest(
  () => trap,
  () => [claude, codex],
);

type ToolEvent = { nodeId: string; tool: string; summary: string; status: string };
const toolEvents = (events: Json[]): ToolEvent[] =>
  events.filter((e) => e.type === 'agent_tool').map(({ nodeId, tool, summary, status }) => ({ nodeId, tool, summary, status }));

/**
 * Runs one workflow on the workspace to its end: the run, the worktree it ran in, and the
 * `agent_tool` events an SSE client of the dashboard's stream saw while it ran.
 */
async function runOnWorkspace(workflow: string): Promise<{ run: Json; worktree: string; live: ToolEvent[] }> {
  const stream = await connect(server, '/api/stream/__dashboard__');
  const runId = await startRun(server, workflow, { message: 'a file', workspaceId });
  const run = await waitForRun(server, runId, undefined, 60_000);
  await stream.until((events) => events.some((e) => e.runId === runId && e.type.startsWith('run_') && e.type !== 'run_started'));
  stream.close();
  expect(run.cwd).toContain(join('worktrees', run.id));
  return { run, worktree: run.cwd, live: toolEvents(stream.events.filter((e) => e.runId === runId)) };
}

/** The files of a commit, as git lists them in the run's worktree. */
const committedFiles = (worktree: string, commit: string): string[] =>
  execFileSync('git', ['show', '--name-only', '--format=', commit], { cwd: worktree, encoding: 'utf8' }).trim().split('\n').filter(Boolean).sort();

/**
 * An edit run's change is the node's commit, the branch's head, and what the run's diff lists as
 * added; its message names the workflow and the node, and its trailer the run.
 */
async function expectCommitted(run: Json, worktree: string, files: string[]): Promise<void> {
  const commit = run.nodes.change.commit as string;
  expect(commit).toMatch(/^[0-9a-f]{40}$/);
  expect(committedFiles(worktree, commit)).toEqual(files);
  expect(run.headCommit).toBe(commit);
  expect(execFileSync('git', ['log', '-1', '--format=%s%n%b', commit], { cwd: worktree, encoding: 'utf8' })).toContain(`Svc-Run: ${run.id}`);
  const diff = await api(server, 'GET', `/api/workflows/runs/${run.id}/diff`);
  expect(diff.status).toBe(200);
  expect(diff.body).toMatchObject({ branch: `svc/${run.id}`, base: run.baseCommit, head: commit, truncated: false });
  expect(diff.body.files.map((file: Json) => [file.path, file.status]).sort()).toEqual(files.map((file) => [file, 'added']));
}

/** A read run changed nothing: no commit, the branch still at its base, an empty diff. */
async function expectNothingCommitted(run: Json): Promise<void> {
  expect(run.nodes.change.commit).toBeNull();
  expect(run.headCommit).toBe(run.baseCommit);
  const diff = await api(server, 'GET', `/api/workflows/runs/${run.id}/diff`);
  expect(diff.body.files).toEqual([]);
}

describe('the real Claude Code', { timeout: 90_000 }, () => {
  it('edit: its Write and its Bash call both write into the run worktree', async () => {
    const { run, worktree, live } = await runOnWorkspace('claude-edit');
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(run.nodes.change).toMatchObject({ status: 'completed', output: 'DONE', permissions: 'edit' });
    expect(readFileSync(join(worktree, 'claude-wrote.txt'), 'utf8')).toBe('written by the real claude\n');
    expect(readFileSync(join(worktree, 'claude-ran.txt'), 'utf8')).toBe('ran\n');
    expect(claudeToolResults(claude).map((result) => result.is_error === true)).toEqual([false, false]);
    const calls = [
      { nodeId: 'change', tool: 'Write', summary: 'Write claude-wrote.txt', status: 'ok' },
      { nodeId: 'change', tool: 'Bash', summary: `Bash: ${CLAUDE_BASH}`, status: 'ok' },
    ];
    expect(toolEvents(run.events)).toEqual(calls);
    expect(live).toEqual(calls);
    expect(run.nodes.change).toMatchObject({ toolCalls: 2, toolsDenied: [], toolsDeniedCount: 0 });
    await expectCommitted(run, worktree, ['claude-ran.txt', 'claude-wrote.txt']);
  });

  it('read: both calls are refused, the model is told so, and the worktree holds neither file', async () => {
    const { run, worktree, live } = await runOnWorkspace('claude-read');
    // The agent itself ends its turn normally: what it was refused is in its stream (permission_denied).
    expect(run.nodes.change).toMatchObject({ status: 'completed', output: 'DONE', permissions: 'read' });
    expect(existsSync(join(worktree, 'claude-wrote.txt'))).toBe(false);
    expect(existsSync(join(worktree, 'claude-ran.txt'))).toBe(false);
    const [write, bash] = claudeToolResults(claude);
    expect(write).toMatchObject({ is_error: true, content: expect.stringMatching(/requested permissions to write to .*claude-wrote\.txt/) });
    expect(bash).toMatchObject({ is_error: true, content: expect.stringMatching(/needs approval|requires approval/) });
    // Each refusal once, though the CLI says it three times (permission_denied, the tool_result, the result's list).
    const calls = [
      { nodeId: 'change', tool: 'Write', summary: 'Write claude-wrote.txt', status: 'denied' },
      { nodeId: 'change', tool: 'Bash', summary: `Bash: ${CLAUDE_BASH}`, status: 'denied' },
    ];
    expect(toolEvents(run.events)).toEqual(calls);
    expect(live).toEqual(calls);
    expect(run.nodes.change).toMatchObject({ toolCalls: 2, toolsDenied: ['Write claude-wrote.txt', `Bash: ${CLAUDE_BASH}`], toolsDeniedCount: 2 });
    await expectNothingCommitted(run);
  });

  it(
    process.getuid?.() === 0
      ? 'full as root without IS_SANDBOX=1: the node fails at once with agent_refused, and the model is never asked'
      : 'full: bypassPermissions, and both calls write',
    async () => {
      const { run, worktree } = await runOnWorkspace('claude-full');
      if (process.getuid?.() === 0) {
        expect(run.status).toBe('failed');
        expect(run.events.find((e: Json) => e.type === 'node_failed')).toMatchObject({ nodeId: 'change', code: 'agent_refused' });
        expect(run.nodes.change.error).toMatch(/IS_SANDBOX=1/);
        expect(claude.requests).toEqual([]);
      } else {
        expect(run.status).toBe('completed');
        expect(existsSync(join(worktree, 'claude-wrote.txt'))).toBe(true);
      }
    },
  );

  it('full with IS_SANDBOX=1 in the server environment: both calls write', async () => {
    process.env.IS_SANDBOX = '1';
    const { run, worktree } = await runOnWorkspace('claude-full');
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(run.nodes.change.permissions).toBe('full');
    expect(existsSync(join(worktree, 'claude-wrote.txt'))).toBe(true);
    expect(existsSync(join(worktree, 'claude-ran.txt'))).toBe(true);
  });
});

describe('the real Codex', { timeout: 90_000 }, () => {
  it('edit: the workspace-write sandbox lets its command write into the run worktree', async () => {
    const { run, worktree, live } = await runOnWorkspace('codex-edit');
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(run.nodes.change).toMatchObject({ status: 'completed', output: 'DONE', permissions: 'edit' });
    expect(readFileSync(join(worktree, 'codex-ran.txt'), 'utf8')).toBe('ran\n');
    expect(codexCallOutputs(codex)).toEqual([expect.objectContaining({ output: expect.stringMatching(/exited with code 0|Exit code: 0/) })]);
    const calls = [{ nodeId: 'change', tool: 'exec', summary: `exec: ${CODEX_COMMAND}`, status: 'ok' }];
    expect(toolEvents(run.events)).toEqual(calls);
    expect(live).toEqual(calls);
    expect(run.nodes.change).toMatchObject({ toolCalls: 1, toolsDenied: [], toolsDeniedCount: 0 });
    await expectCommitted(run, worktree, ['codex-ran.txt']);
  });

  it('read: the read-only sandbox fails its command, and the worktree holds no file', async () => {
    const { run, worktree, live } = await runOnWorkspace('codex-read');
    expect(run.nodes.change).toMatchObject({ status: 'completed', output: 'DONE', permissions: 'read' });
    expect(existsSync(join(worktree, 'codex-ran.txt'))).toBe(false);
    expect(codexCallOutputs(codex)).toEqual([expect.objectContaining({ output: expect.stringContaining('Read-only file system') })]);
    // The sandbox's refusal reaches svc as a command that failed: codex says nothing more of why.
    const calls = [{ nodeId: 'change', tool: 'exec', summary: `exec: ${CODEX_COMMAND} (exit 1)`, status: 'failed' }];
    expect(toolEvents(run.events)).toEqual(calls);
    expect(live).toEqual(calls);
    expect(run.nodes.change).toMatchObject({ toolCalls: 1, toolsDenied: [], toolsDeniedCount: 0 });
    await expectNothingCommitted(run);
  });

  it("read with CODEX_HOME inside the system's temporary directory: the node's own TMPDIR keeps codex's sandbox helper working", async () => {
    // codex refuses its helper aliases under a CODEX_HOME inside $TMPDIR, and with a permission
    // profile then cannot start at all ("bwrap: execvp codex-linux-sandbox"; measured). A sandboxed
    // node's TMPDIR is svc's own per-node directory, so codex starts, its profile refuses the write,
    // and svc has nothing to warn of (docs/decisions.md, "Codex's sandbox helper").
    const home = await tempDir('svc-real-tmp-home-');
    Object.assign(process.env, await offlineAgentEnv(home, trap));
    const { run, worktree } = await runOnWorkspace('codex-read');
    expect(run.nodes.change).toMatchObject({ status: 'completed', output: 'DONE', permissions: 'read', sandbox: 'on' });
    expect(existsSync(join(worktree, 'codex-ran.txt'))).toBe(false);
    expect(codexCallOutputs(codex)).toEqual([expect.objectContaining({ output: expect.stringContaining('Read-only file system') })]);
    const log = existsSync(join(server.home, 'logs', 'svc.log')) ? readFileSync(join(server.home, 'logs', 'svc.log'), 'utf8') : '';
    expect(log).not.toContain('agent.codex_helpers_unavailable');
  });

  it('full: no sandbox, and its command writes', async () => {
    const { run, worktree } = await runOnWorkspace('codex-full');
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(existsSync(join(worktree, 'codex-ran.txt'))).toBe(true);
  });
});
