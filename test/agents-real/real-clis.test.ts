// The real Claude Code and Codex CLIs (pinned devDependencies) driven by svc, offline, against a
// local stand-in of each model API that answers with tool calls (docs/decisions.md, Agents): a
// prompt node on a workspace with `permissions: edit` leaves the agent's files in the run's
// worktree; with `read` it leaves none, and the CLI told the model its calls were refused. Every
// test has a fresh HOME, and proxy variables pointing at a trap that no request may reach.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { TestServer } from '../helpers/server.js';
import { api, cleanupAll, type Json, onCleanup, setProcessEnv, startRun, startServer, tempDir, waitForRun } from '../engine/helpers.js';
import {
  claudeToolResults,
  codexCallOutputs,
  startClaudeStandIn,
  startCodexStandIn,
  startNetworkTrap,
  type NetworkTrap,
  type StandIn,
} from '../support/model-standins.js';
import { offlineAgentEnv, REAL_CLAUDE, REAL_CODEX } from '../support/real-agents.js';
import { makeRepository } from '../workspaces/git-fixtures.js';

const KEY_ENV = 'SVC_TEST_STANDIN_KEY';
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
    bash: 'sleep 1; echo ran > claude-ran.txt',
    finalText: 'DONE',
  });
  // A command that runs a moment before it writes: codex's --json often leaves out one its sandbox refuses at once.
  codex = await startCodexStandIn({ command: 'sleep 1; echo ran > codex-ran.txt', finalText: 'DONE' });
  trap = await startNetworkTrap();
  onCleanup(() => Promise.all([claude.close(), codex.close(), trap.close()]));

  setProcessEnv({ [KEY_ENV]: 'sk-standin-not-a-real-key', IS_SANDBOX: '' });
  server = await startServer({ env: { SVC_CLAUDE_BIN: REAL_CLAUDE, SVC_CODEX_BIN: REAL_CODEX } });
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

// A fresh HOME per test, with the agents' offline switches; svc's agents inherit its environment.
const restoreEnv: Array<() => void> = [];
beforeEach(async () => {
  const saved = { ...process.env };
  restoreEnv.push(() => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  });
  Object.assign(process.env, await offlineAgentEnv(await tempDir('svc-real-home-'), trap));
  claude.requests.length = 0;
  codex.requests.length = 0;
});
afterEach(() => {
  restoreEnv.pop()?.();
  expect(trap.attempts, 'requests that would have left the machine').toEqual([]);
});

/** Runs one workflow on the workspace to its end: the run, and the worktree it ran in. */
async function runOnWorkspace(workflow: string): Promise<{ run: Json; worktree: string }> {
  const run = await waitForRun(server, await startRun(server, workflow, { message: 'a file', workspaceId }), undefined, 60_000);
  expect(run.cwd).toContain(join('worktrees', run.id));
  return { run, worktree: run.cwd };
}

describe('the real Claude Code', { timeout: 90_000 }, () => {
  it('edit: its Write and its Bash call both write into the run worktree', async () => {
    const { run, worktree } = await runOnWorkspace('claude-edit');
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(run.nodes.change).toMatchObject({ status: 'completed', output: 'DONE', permissions: 'edit' });
    expect(readFileSync(join(worktree, 'claude-wrote.txt'), 'utf8')).toBe('written by the real claude\n');
    expect(readFileSync(join(worktree, 'claude-ran.txt'), 'utf8')).toBe('ran\n');
    expect(claudeToolResults(claude).map((result) => result.is_error === true)).toEqual([false, false]);
  });

  it('read: both calls are refused, the model is told so, and the worktree holds neither file', async () => {
    const { run, worktree } = await runOnWorkspace('claude-read');
    // The agent itself ends its turn normally: what it was refused is in its stream (permission_denied).
    expect(run.nodes.change).toMatchObject({ status: 'completed', output: 'DONE', permissions: 'read' });
    expect(existsSync(join(worktree, 'claude-wrote.txt'))).toBe(false);
    expect(existsSync(join(worktree, 'claude-ran.txt'))).toBe(false);
    const [write, bash] = claudeToolResults(claude);
    expect(write).toMatchObject({ is_error: true, content: expect.stringMatching(/requested permissions to write to .*claude-wrote\.txt/) });
    expect(bash).toMatchObject({ is_error: true, content: expect.stringMatching(/needs approval|requires approval/) });
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
    const { run, worktree } = await runOnWorkspace('codex-edit');
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(run.nodes.change).toMatchObject({ status: 'completed', output: 'DONE', permissions: 'edit' });
    expect(readFileSync(join(worktree, 'codex-ran.txt'), 'utf8')).toBe('ran\n');
    expect(codexCallOutputs(codex)).toEqual([expect.objectContaining({ output: expect.stringMatching(/exited with code 0|Exit code: 0/) })]);
  });

  it('read: the read-only sandbox fails its command, and the worktree holds no file', async () => {
    const { run, worktree } = await runOnWorkspace('codex-read');
    expect(run.nodes.change).toMatchObject({ status: 'completed', output: 'DONE', permissions: 'read' });
    expect(existsSync(join(worktree, 'codex-ran.txt'))).toBe(false);
    expect(codexCallOutputs(codex)).toEqual([expect.objectContaining({ output: expect.stringContaining('Read-only file system') })]);
  });

  it('full: no sandbox, and its command writes', async () => {
    const { run, worktree } = await runOnWorkspace('codex-full');
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(existsSync(join(worktree, 'codex-ran.txt'))).toBe(true);
  });
});
