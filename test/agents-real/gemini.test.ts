// The real Gemini CLI (pinned devDependency @google/gemini-cli) as an acp assistant with the
// `gemini` preset, driven by svc over ACP, offline, against a local stand-in of the Gemini API
// (test/support/gemini-standin.ts; docs/decisions.md, "ACP agents", "Agent tests"): a prompt node's
// write_file lands in the run's worktree and the run's diff; at `read` svc refuses it — denied,
// not done; at `edit` a shell command runs, the whole agent in its OS sandbox; a conversation's
// second message reaches the model with the first; cancel stops it within seconds leaving no
// process; a silent model trips idle_timeout.
// Every test has a fresh HOME, and proxy variables pointing at a trap that no request may reach.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { TestServer } from '../helpers/server.js';
import {
  api,
  cleanupAll,
  liveGroupMembers,
  readLog,
  onCleanup,
  setProcessEnv,
  startRun,
  startServer,
  tempDir,
  waitFor,
  waitForRun,
  waitForStatus,
  type Json,
} from '../helpers/runs.js';
import { createConversation, send, waitForReply } from '../helpers/conversations.js';
import { makeRepository } from '../helpers/git.js';
import { startNetworkTrap, type NetworkTrap, type StandIn } from '../support/model-standins.js';
import { geminiFunctionResponses, geminiTexts, startGeminiStandIn } from '../support/gemini-standin.js';
import { offlineAgentPerTest } from '../support/real-agents.js';

const REAL_GEMINI = fileURLToPath(new URL('../../node_modules/.bin/gemini', import.meta.url));
const KEY_ENV = 'SVC_TEST_GEMINI_KEY';
const SHELL = 'echo ran > gemini-ran.txt';
const node = (name: string, permissions: string, prompt: string, extra: Json = {}) => ({
  name,
  description: `one gemini node at ${permissions}`,
  nodes: [{ id: 'change', assistant: 'gemini', permissions, prompt, ...extra }],
});
const WORKFLOWS = [
  node('gemini-write', 'edit', 'WRITE gemini-wrote.txt'),
  node('gemini-read', 'read', 'WRITE gemini-wrote.txt'),
  node('gemini-shell', 'edit', `SHELL ${SHELL}`),
  node('gemini-hang', 'edit', 'HANG'),
  node('gemini-silent', 'edit', 'HANG', { idle_timeout: '3s' }),
];

let server: TestServer;
let workspaceId: string;
let gemini: StandIn;
let trap: NetworkTrap;

beforeAll(async () => {
  const repo = realpathSync(await tempDir('svc-real-gemini-repo-'));
  await mkdir(join(repo, '.svc', 'workflows'), { recursive: true });
  for (const workflow of WORKFLOWS) await writeFile(join(repo, '.svc', 'workflows', `${workflow.name}.yaml`), stringify(workflow));
  makeRepository(repo, { 'README.md': '# demo\n' });
  // The second message of a conversation is answered with what the model was sent before it.
  gemini = await startGeminiStandIn('DONE', (users) =>
    users.at(-1)!.includes('which word?') && users.some((text) => text.includes('the word is teal')) ? 'REMEMBERED teal' : undefined,
  );
  trap = await startNetworkTrap();
  onCleanup(() => Promise.all([gemini.close(), trap.close()]));
  setProcessEnv({ [KEY_ENV]: 'standin-not-a-real-key' });
  server = await startServer({ socket: true });
  // The preset keeps Gemini CLI's state in svc's home (agents/<name>); offline, its usage statistics
  // (play.googleapis.com) and update check are turned off there, as codex's config.toml does for codex.
  await mkdir(join(server.home, 'agents', 'gemini', '.gemini'), { recursive: true });
  await writeFile(
    join(server.home, 'agents', 'gemini', '.gemini', 'settings.json'),
    JSON.stringify({ privacy: { usageStatisticsEnabled: false }, general: { disableAutoUpdate: true, disableUpdateNag: true } }),
  );
  const configured = await api(server, 'PATCH', '/api/config/assistants', {
    gemini: { kind: 'acp', preset: 'gemini', command: [REAL_GEMINI, '--acp'], model: 'gemini-2.5-flash', baseUrl: gemini.url, apiKeyEnv: KEY_ENV },
  });
  expect(configured.status, JSON.stringify(configured.body)).toBe(200);
  const registered = await api(server, 'POST', '/api/workspaces', { path: repo });
  expect(registered.status).toBe(201);
  workspaceId = registered.body.id;
}, 60_000);
afterAll(cleanupAll);

offlineAgentPerTest(
  () => trap,
  () => [gemini],
);

const toolEvents = (run: Json) => (run.events as Json[]).filter((e) => e.type === 'agent_tool').map(({ tool, summary, status }) => ({ tool, summary, status }));
const run = async (workflow: string) => waitForRun(server, await startRun(server, workflow, { message: '', workspaceId }), undefined, 90_000);

describe('the real Gemini CLI over ACP', { timeout: 120_000 }, () => {
  it("edit: its write_file is allowed once and is the node's commit in the run's diff", async () => {
    const done = await run('gemini-write');
    expect(done.status, JSON.stringify(done.nodes)).toBe('completed');
    expect(done.nodes.change).toMatchObject({ output: 'DONE', permissions: 'edit', toolCalls: 1, toolsDeniedCount: 0 });
    expect(readFileSync(join(done.cwd, 'gemini-wrote.txt'), 'utf8')).toBe('written by the real gemini\n');
    expect(toolEvents(done)).toEqual([{ tool: 'edit', summary: expect.stringContaining('gemini-wrote.txt'), status: 'ok' }]);
    const diff = await api(server, 'GET', `/api/workflows/runs/${done.id}/diff`);
    expect(diff.body.files.map((file: Json) => [file.path, file.status])).toEqual([['gemini-wrote.txt', 'added']]);
    expect(execFileSync('git', ['log', '-1', '--format=%b', done.nodes.change.commit], { cwd: done.cwd, encoding: 'utf8' })).toContain(`Svc-Run: ${done.id}`);
    // Its tokens, from the prompt response's _meta.quota; no price: the cost is unknown.
    expect(done.nodes.change.tokens).toEqual({ input: expect.any(Number), output: expect.any(Number) });
    expect(done.costPartial).toBe(true);
  });

  it('read: svc refuses the write, it shows denied, and the file is not written', async () => {
    const done = await run('gemini-read');
    expect(done.nodes.change).toMatchObject({ permissions: 'read', toolCalls: 1, toolsDeniedCount: 1 });
    expect(existsSync(join(done.cwd, 'gemini-wrote.txt'))).toBe(false);
    expect(toolEvents(done)).toEqual([{ tool: 'edit', summary: expect.stringContaining('gemini-wrote.txt'), status: 'denied' }]);
    expect(done.nodes.change.commit).toBeNull();
  });

  it('edit: a shell command is allowed and runs in the worktree', async () => {
    const done = await run('gemini-shell');
    expect(done.status, JSON.stringify(done.nodes)).toBe('completed');
    expect(readFileSync(join(done.cwd, 'gemini-ran.txt'), 'utf8')).toBe('ran\n');
    // The whole agent ran in the node's OS sandbox, its model traffic through the sandbox's proxy to the stand-in only.
    expect(done.nodes.change.sandbox).toBe('on');
    expect(done.nodes.change.sandboxWarning).toBeUndefined();
    expect(toolEvents(done)).toEqual([{ tool: 'execute', summary: expect.stringContaining(SHELL), status: 'ok' }]);
    expect(geminiFunctionResponses(gemini)).toHaveLength(1);
  });

  it('cancel: the run is cancelled within seconds and no process of the agent is left', async () => {
    const id = await startRun(server, 'gemini-hang', { message: '', workspaceId });
    // The CLI is waiting for the model: its request reached the stand-in.
    await waitFor(() => gemini.requests.some((request) => geminiTexts(request.body).some((entry) => entry.text.includes('HANG'))), 60_000);
    const pid = (await api(server, 'GET', `/api/workflows/runs/${id}`)).body.nodes.change.pid as number | undefined;
    expect((await api(server, 'POST', `/api/workflows/runs/${id}/cancel`)).status).toBe(200);
    const end = await waitForStatus(server, id, 'cancelled', 10_000);
    expect(end.nodes.change.status).toBe('cancelled');
    if (pid) await waitFor(() => liveGroupMembers(pid).length === 0 || undefined, 10_000);
    expect(processesRunning(REAL_GEMINI)).toEqual([]);
  });

  it('a silent model trips idle_timeout and the agent is stopped', async () => {
    const done = await run('gemini-silent');
    expect(done.status).toBe('failed');
    expect(done.events.find((e: Json) => e.type === 'node_failed')).toMatchObject({ code: 'stalled' });
    await waitFor(() => processesRunning(REAL_GEMINI).length === 0 || undefined, 10_000);
    expect(processesRunning(REAL_GEMINI)).toEqual([]);
  });

  it("a conversation's second message continues the first's session: the model is sent the first", async () => {
    const conversation = await createConversation(server, { assistant: 'gemini' });
    const first = await waitForReply(server, conversation.id, await send(server, conversation.id, 'the word is teal'), 90_000);
    expect(first).toMatchObject({ role: 'assistant', content: 'ok' });
    const second = await waitForReply(server, conversation.id, await send(server, conversation.id, 'which word?'), 90_000);
    expect(second).toMatchObject({ role: 'assistant', content: 'REMEMBERED teal' });
    // Within the clock minute of its creation Gemini CLI cannot load the session (shared notes §11):
    // then a new one was given the conversation so far, and the server's log says so.
    const asked = gemini.requests.map(
      (request) =>
        geminiTexts(request.body)
          .filter((entry) => entry.role === 'user')
          .at(-1)?.text ?? '',
    );
    const lastAsk = asked.filter((text) => text.includes('which word?')).at(-1)!;
    const loaded = !readLog(server.home).some((entry) => entry.event === 'agent.acp_session_not_loaded');
    if (loaded) expect(lastAsk).not.toContain('User: the word is teal');
    else expect(lastAsk).toContain('User: the word is teal');
  });
});

/** Processes of this machine whose command line runs `bin` (the agent's own, under node). */
function processesRunning(bin: string): string[] {
  const target = realpathSync(bin);
  const out = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => (line.includes(target) || line.includes(bin)) && !/^\s*\d+\s+Z/.test(line))
    .map((line) => line.trim());
}
