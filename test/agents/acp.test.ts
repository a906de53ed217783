// An acp assistant over a real server, driven by the fake ACP agent (test/fixtures/fake-acp.mjs, the
// SDK's agent side): a prompt node's write is the node's commit and the run's diff; `read` refuses
// a write (denied, not done), `edit` lets a command run; a conversation's second message continues
// its session, or — when the agent cannot load it — a new one given the conversation so far;
// cancel stops it within seconds and leaves no process; a silent agent trips `idle_timeout`; the
// configuration's refusals and its safe view (docs/decisions.md, "ACP agents").
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import {
  api,
  cleanupAll,
  isAlive,
  killQuietly,
  onCleanup,
  readPidFile,
  setProcessEnv,
  startRun,
  startServer,
  tempDir,
  waitFor,
  waitForDeath,
  waitForRun,
  waitForStatus,
  type Json,
} from '../helpers/runs.js';
import { registerProject } from '../helpers/registered-project.js';
import { pathWithout } from '../support/path-without.js';
import { connect, createConversation, messages, send, waitForReply } from '../helpers/conversations.js';

const FAKE_ACP = fileURLToPath(new URL('../fixtures/fake-acp.mjs', import.meta.url));
const SECRET = 'sk-fake-acp-SECRET-41c9';
const SSH_KEY = 'SSH-KEY-TEXT-90b2';
const SVC_SECRET = 'SVC-HOME-TEXT-5e7a';

const node = (name: string, permissions: string, prompt: string, extra: Json = {}) => ({
  name,
  description: `one fake-acp node at ${permissions}`,
  nodes: [{ id: 'change', assistant: 'fake', permissions, prompt, ...extra }],
});
const WORKFLOWS = [
  node('acp-write', 'edit', 'say hello\nwrite notes.txt written by acp\nsay  done'),
  node('acp-read', 'read', 'write notes.txt never\nsay refused'),
  node('acp-run', 'edit', 'run echo ran > ran.txt\nsay ok'),
  node('acp-cancel', 'edit', 'spawn echo $$ > child.pid; exec sleep 300\nwait 60000'),
  // Unsandboxed (`full`): in the sandbox the pid a command writes is its pid namespace's, and the
  // namespace ends with the agent; outside it a command in a session of its own outlived the group.
  node('acp-escape-cancel', 'full', 'escape echo $$ > escaped.pid; exec sleep 300\nwait 60000'),
  node('acp-escape-timeout', 'full', 'escape echo $$ > escaped.pid; exec sleep 300\nwait 60000', { timeout: '2s' }),
  node('acp-silent', 'edit', 'silent', { idle_timeout: '2s' }),
  node('acp-kindless', 'edit', 'kindless-write notes.txt kind from the tool_call\nsay ok'),
  node('acp-odd-stop', 'edit', 'stop constructor'),
  // Before its answer was bounded, this agent was stopped only by its node's timeout.
  node('acp-flood', 'edit', 'flood 17\nsilent', { timeout: '40s' }),
  node('acp-max-tokens', 'edit', 'tokens -5 200\nstop max_tokens'),
  node('acp-cut-short', 'edit', 'killable sleep 30'),
  node('acp-refusal', 'edit', 'stop refusal'),
  node('acp-missing', 'edit', 'say hi', { assistant: 'nobody' }),
  node('acp-claud', 'edit', 'say hi', { assistant: 'claud' }),
  node('acp-coder', 'edit', 'say coded', { assistant: 'coder' }),
];

let server: TestServer;
let workspaceId: string;
let sessions: string;
/** Local servers: the assistant's endpoint (its sandbox lets it reach this one), and another host. */
let endpoint: Local;
let other: Local;
let home: string;

interface Local {
  url: string;
  port: number;
  paths: string[];
  close(): void;
}

async function localServer(): Promise<Local> {
  const paths: string[] = [];
  const local = createServer((req, res) => {
    paths.push(req.url ?? '');
    res.end('reached');
  });
  await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
  const { port } = local.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port, paths, close: () => local.close() };
}

beforeAll(async () => {
  // The agent's HOME (the server's, which agents get) with a key its sandbox must keep unread.
  home = await tempDir('svc-fake-acp-home-');
  await mkdir(join(home, '.ssh'));
  await writeFile(join(home, '.ssh', 'id_test'), `${SSH_KEY}\n`, { mode: 0o600 });
  setProcessEnv({ HOME: home });
  [endpoint, other] = await Promise.all([localServer(), localServer()]);
  onCleanup(() => (endpoint.close(), other.close()));
  // Memory sampling off: its own sweep at a node's end kills what it saw leave the group, which
  // would hide whether stopping the group does (the escape tests below).
  server = await startServer({ env: { SVC_TEST_ACP_KEY: SECRET, SVC_MEMORY_SAMPLE_MS: '0' } });
  // Sessions in the agent's own directory under svc's home: the one place of it its sandbox writes.
  sessions = join(server.home, 'agents', 'fake', 'sessions');
  await writeFile(join(server.home, 'svc-secret.txt'), `${SVC_SECRET}\n`);
  const configured = await api(server, 'PATCH', '/api/config/assistants', {
    fake: { kind: 'acp', command: ['node', FAKE_ACP], env: { FAKE_ACP_SESSIONS: sessions }, apiKeyEnv: 'SVC_TEST_ACP_KEY', baseUrl: endpoint.url },
    flaky: {
      kind: 'acp',
      command: ['node', FAKE_ACP],
      env: { FAKE_ACP_SESSIONS: join(server.home, 'agents', 'flaky', 'sessions'), FAKE_ACP_LOAD_FAILS: '1' },
    },
  });
  expect(configured.status, JSON.stringify(configured.body)).toBe(200);
  // What a hostile prompt would have its agent run — read a key and svc's home, reach a host other
  // than its endpoint — beside a request to its endpoint, then its legitimate writes.
  const boxed = [
    'cat ~/.ssh/id_test > got-ssh.txt',
    `cat ${join(server.home, 'svc-secret.txt')} > got-home.txt`,
    `curl -sf -m 5 ${other.url}/other > got-other.txt`,
    `curl -sf -m 5 ${endpoint.url}/endpoint > got-endpoint.txt`,
    'echo inside > inside.txt',
  ].join('; ');
  const workflows = [...WORKFLOWS, node('acp-boxed', 'edit', `run ${boxed}\nwrite notes.txt written in the sandbox\nsay done`)];
  workspaceId = (await registerProject(server, { workflows })).workspace.id;
});
afterAll(cleanupAll);

/** The live processes of this machine working in `dir` or below it. */
function processesIn(dir: string): number[] {
  const root = realpathSync(dir);
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const cwd = readlinkSync(`/proc/${pid}/cwd`);
        return (cwd === root || cwd.startsWith(`${root}/`)) && !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false; // ended meanwhile, or not ours to read
      }
    })
    .map(Number);
}

const commandLine = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
};

const toolEvents = (run: Json) => (run.events as Json[]).filter((e) => e.type === 'agent_tool').map(({ tool, summary, status }) => ({ tool, summary, status }));
const run = async (workflow: string) => waitForRun(server, await startRun(server, workflow, { message: '', workspaceId }));

describe('a prompt node on an acp assistant', () => {
  it("edit: its write is allowed once, streams as output, and is the node's commit in the run's diff", async () => {
    const done = await run('acp-write');
    expect(done.status, JSON.stringify(done.nodes)).toBe('completed');
    expect(done.nodes.change).toMatchObject({ output: 'hello done', toolCalls: 1, toolsDenied: [], toolsDeniedCount: 0 });
    expect(readFileSync(join(done.cwd, 'notes.txt'), 'utf8')).toBe('written by acp\n');
    expect(toolEvents(done)).toEqual([{ tool: 'edit', summary: 'edit notes.txt', status: 'ok' }]);
    const diff = await api(server, 'GET', `/api/workflows/runs/${done.id}/diff`);
    expect(diff.body.files.map((file: Json) => [file.path, file.status])).toEqual([['notes.txt', 'added']]);
    // Tokens from `_meta.quota.token_count`; no price configured: the cost is unknown, not 0.
    expect(done.nodes.change.costUsd).toBeNull();
    expect(done.costPartial).toBe(true);
  });

  it('read: the write is refused, shown denied, and not done', async () => {
    const done = await run('acp-read');
    expect(done.status).toBe('completed');
    expect(existsSync(join(done.cwd, 'notes.txt'))).toBe(false);
    // Refused once, though the agent also reports the call failed after the refusal.
    expect(toolEvents(done)).toEqual([{ tool: 'edit', summary: 'edit notes.txt', status: 'denied' }]);
    expect(done.nodes.change).toMatchObject({ output: 'refused', toolCalls: 1, toolsDenied: ['edit notes.txt'], toolsDeniedCount: 1 });
    expect(done.nodes.change.commit).toBeNull();
  });

  it('edit: a shell command is allowed and runs in the worktree', async () => {
    const done = await run('acp-run');
    expect(done.status).toBe('completed');
    expect(readFileSync(join(done.cwd, 'ran.txt'), 'utf8')).toBe('ran\n');
    expect(toolEvents(done)).toEqual([{ tool: 'execute', summary: 'execute: echo ran > ran.txt', status: 'ok' }]);
  });

  it("edit: the agent runs in the node's sandbox — no key, nothing of svc's home, no host but its endpoint — and writes its worktree", async () => {
    const done = await run('acp-boxed');
    expect(done.status, JSON.stringify(done.nodes)).toBe('completed');
    expect(done.nodes.change).toMatchObject({ sandbox: 'on', output: 'done' });
    expect(done.nodes.change.sandboxWarning).toBeUndefined();
    const got = (file: string) => readFileSync(join(done.cwd, file), 'utf8');
    expect(got('got-ssh.txt')).not.toContain(SSH_KEY);
    expect(got('got-home.txt')).not.toContain(SVC_SECRET);
    expect(got('got-other.txt')).toBe('');
    expect(other.paths).toEqual([]);
    // Its endpoint is reached, through the sandbox's proxy.
    expect(got('got-endpoint.txt')).toBe('reached');
    expect(endpoint.paths).toContain('/endpoint');
    expect(got('inside.txt')).toBe('inside\n');
    expect(got('notes.txt')).toBe('written in the sandbox\n');
    const denied = (done.events as Json[]).filter((e) => e.type === 'sandbox_denied').map(({ kind, target }) => ({ kind, target }));
    expect(denied).toContainEqual({ kind: 'net', target: `127.0.0.1:${other.port}` });
  });

  it('with bubblewrap missing from PATH: fails sandbox_unavailable naming it, and the agent never starts', async () => {
    const saved = process.env.PATH;
    process.env.PATH = await pathWithout('bwrap', await tempDir('svc-path-'));
    const done = await run('acp-write').finally(() => {
      process.env.PATH = saved;
    });
    expect(done.status).toBe('failed');
    expect(done.nodes.change).toMatchObject({ status: 'failed', errorCode: 'sandbox_unavailable', sandbox: 'on' });
    expect(done.nodes.change.error).toMatch(/bubblewrap \(bwrap\)/);
    expect(existsSync(join(done.cwd, 'notes.txt'))).toBe(false);
  });

  it('a price per million tokens prices its tokens', async () => {
    await api(server, 'PATCH', '/api/config/assistants', { fake: { pricePerMillionTokens: { input: 1, output: 10 } } });
    const done = await run('acp-run');
    await api(server, 'PATCH', '/api/config/assistants', { fake: { pricePerMillionTokens: null } });
    // 1000 input tokens at $1 and 200 output at $10 per million.
    expect(done.nodes.change.costUsd).toBeCloseTo(0.003, 9);
  });

  it('cancel: session/cancel, then the process group: the run is cancelled within seconds and nothing of it is left', async () => {
    const id = await startRun(server, 'acp-cancel', { message: '', workspaceId });
    const cwd = await waitFor(async () => (await api(server, 'GET', `/api/workflows/runs/${id}`)).body.cwd as string | undefined);
    // The agent's background child exists once the agent waits in its turn (the pid it wrote is its
    // sandbox's own: what is left is found by its working directory, the worktree).
    await readPidFile(join(cwd, 'child.pid'));
    expect(processesIn(cwd).length).toBeGreaterThan(0);
    const cancelled = await api(server, 'POST', `/api/workflows/runs/${id}/cancel`);
    expect(cancelled.status).toBe(200);
    const end = await waitForStatus(server, id, 'cancelled', 10_000);
    expect(end.nodes.change.status).toBe('cancelled');
    await waitFor(() => processesIn(cwd).length === 0 || undefined, 10_000);
    expect(processesIn(cwd)).toEqual([]);
  });

  it('cancel: a command the agent started in a session of its own is stopped too', async () => {
    const id = await startRun(server, 'acp-escape-cancel', { message: '', workspaceId });
    const cwd = await waitFor(async () => (await api(server, 'GET', `/api/workflows/runs/${id}`)).body.cwd as string | undefined);
    const escaped = await readPidFile(join(cwd, 'escaped.pid'));
    onCleanup(() => killQuietly(escaped, 'sleep'));
    expect((await api(server, 'POST', `/api/workflows/runs/${id}/cancel`)).status).toBe(200);
    await waitForStatus(server, id, 'cancelled', 10_000);
    await waitForDeath(escaped, 10_000);
    expect(isAlive(escaped)).toBe(false);
  });

  it('timeout: a command the agent started in a session of its own is stopped with it', async () => {
    const id = await startRun(server, 'acp-escape-timeout', { message: '', workspaceId });
    const cwd = await waitFor(async () => (await api(server, 'GET', `/api/workflows/runs/${id}`)).body.cwd as string | undefined);
    const escaped = await readPidFile(join(cwd, 'escaped.pid'));
    onCleanup(() => killQuietly(escaped, 'sleep'));
    const done = await waitForRun(server, id);
    expect(done.events.find((e: Json) => e.type === 'node_failed')).toMatchObject({ code: 'agent_timeout' });
    await waitForDeath(escaped, 10_000);
    expect(isAlive(escaped)).toBe(false);
  });

  it('a permission request without a kind takes the kind its tool_call gave (ACP lets an update leave it out)', async () => {
    const done = await run('acp-kindless');
    expect(done.status, JSON.stringify(done.nodes)).toBe('completed');
    expect(readFileSync(join(done.cwd, 'notes.txt'), 'utf8')).toBe('kind from the tool_call\n');
    expect(toolEvents(done)).toEqual([{ tool: 'edit', summary: 'edit notes.txt', status: 'ok' }]);
  });

  it('a stop reason ACP does not name fails the node agent_protocol_error', async () => {
    const done = await run('acp-odd-stop');
    expect(done.status).toBe('failed');
    expect(done.events.find((e: Json) => e.type === 'node_failed')).toMatchObject({ code: 'agent_protocol_error' });
    expect(done.nodes.change.error).toMatch(/ended its turn: constructor/);
  });

  it('an answer past the output limit stops the agent at once, output_too_large', async () => {
    const done = await run('acp-flood');
    expect(done.status).toBe('failed');
    expect(done.events.find((e: Json) => e.type === 'node_failed')).toMatchObject({ code: 'output_too_large' });
    expect(done.nodes.change.error).toMatch(/answered more than 16 MiB/);
  });

  it("a turn ended on another stop reason still costs its tokens (none below zero), priced against the run's spend", async () => {
    await api(server, 'PATCH', '/api/config/assistants', { fake: { pricePerMillionTokens: { input: 1, output: 10 } } });
    const done = await run('acp-max-tokens');
    await api(server, 'PATCH', '/api/config/assistants', { fake: { pricePerMillionTokens: null } });
    expect(done.events.find((e: Json) => e.type === 'node_failed')).toMatchObject({ code: 'agent_max_tokens' });
    // -5 input tokens count as none; 200 output tokens at $10 per million.
    expect(done.nodes.change.costUsd).toBeCloseTo(0.002, 9);
    expect(done.costUsd).toBeCloseTo(0.002, 9);
  });

  it('cancel: a command it cut short is failed, not ok, and a permission asked meanwhile is no denial', async () => {
    const id = await startRun(server, 'acp-cut-short', { message: '', workspaceId });
    await waitFor(async () => (await api(server, 'GET', `/api/workflows/runs/${id}`)).body.cwd as string | undefined);
    // The command runs once its permission was answered: a `sleep 30` works in the worktree.
    const { cwd } = (await api(server, 'GET', `/api/workflows/runs/${id}`)).body;
    await waitFor(() => processesIn(cwd).some((pid) => commandLine(pid) === 'sleep 30') || undefined);
    expect((await api(server, 'POST', `/api/workflows/runs/${id}/cancel`)).status).toBe(200);
    const end = await waitForStatus(server, id, 'cancelled', 10_000);
    expect(toolEvents(end)).toEqual([
      { tool: 'execute', summary: 'execute: sleep 30', status: 'failed' },
      { tool: 'edit', summary: 'edit late.txt', status: 'failed' },
    ]);
    expect(end.nodes.change).toMatchObject({ toolsDeniedCount: 0, toolsDenied: [] });
    expect(existsSync(join(end.cwd, 'late.txt'))).toBe(false);
  });

  it('a silent agent trips idle_timeout and is stopped', async () => {
    const done = await run('acp-silent');
    expect(done.status).toBe('failed');
    expect(done.nodes.change.error).toMatch(/no output for 2s \(idle_timeout\)/);
    expect(done.events.find((e: Json) => e.type === 'node_failed')).toMatchObject({ code: 'stalled' });
  });

  it('a stop reason other than end_turn fails the node with its code', async () => {
    const done = await run('acp-refusal');
    expect(done.events.find((e: Json) => e.type === 'node_failed')).toMatchObject({ code: 'agent_refusal' });
  });

  it('an assistant the configuration does not have fails the node, saying how to add it', async () => {
    const done = await run('acp-missing');
    expect(done.events.find((e: Json) => e.type === 'node_failed')).toMatchObject({ code: 'unknown_assistant' });
    expect(done.nodes.change.error).toMatch(/No assistant is named 'nobody'/);
    expect(done.nodes.change.error).not.toMatch(/did you mean/);
  });

  it('a name a letter from claude runs once configured, and unconfigured fails suggesting claude', async () => {
    const typo = await run('acp-claud');
    expect(typo.events.find((e: Json) => e.type === 'node_failed')).toMatchObject({ code: 'unknown_assistant' });
    expect(typo.nodes.change.error).toMatch(/No assistant is named 'claud'.*\(did you mean 'claude'\?\)$/s);
    await api(server, 'PATCH', '/api/config/assistants', { coder: { kind: 'acp', command: ['node', FAKE_ACP] } });
    const done = await run('acp-coder');
    await api(server, 'PATCH', '/api/config/assistants', { coder: null });
    expect(done.status, JSON.stringify(done.nodes)).toBe('completed');
    expect(done.nodes.change.output).toBe('coded');
  });
});

describe('a conversation with an acp assistant', () => {
  it('streams deltas and tool events, and its second message continues the session (history replayed is not repeated)', async () => {
    const conversation = await createConversation(server, { assistant: 'fake', workspace_id: workspaceId, permissions: 'edit' });
    const stream = await connect(server, `/api/stream/${conversation.id}`);
    const first = await send(server, conversation.id, 'say first answer\nrun true');
    const reply = await waitForReply(server, conversation.id, first);
    expect(reply).toMatchObject({ role: 'assistant', content: 'first answer' });
    await stream.until((events) => events.some((e) => e.type === 'assistant_done'));
    expect(stream.events.filter((e) => e.type === 'assistant_delta').map((e) => e.text)).toEqual(['first answer']);
    expect(stream.events.find((e) => e.type === 'agent_tool')).toMatchObject({ messageId: first, tool: 'execute', summary: 'execute: true', status: 'ok' });
    stream.close();
    const second = await waitForReply(server, conversation.id, await send(server, conversation.id, 'recall'));
    expect(second.content).toBe('recall: say first answer\nrecall: run true\n');
  });

  it('an agent that cannot load its session gets a new one, given the conversation so far', async () => {
    const conversation = await createConversation(server, { assistant: 'flaky' });
    await waitForReply(server, conversation.id, await send(server, conversation.id, 'say remember the word teal'));
    const second = await waitForReply(server, conversation.id, await send(server, conversation.id, 'recall'));
    // The new session's only prompt is the transcript and the new message.
    expect(second.content).toContain('recall: User: say remember the word teal');
    expect(second.content).toContain('recall: Assistant: remember the word teal');
    const all = await messages(server, conversation.id);
    expect(all.filter((m) => m.role === 'system')).toEqual([]);
  });

  it('naming an assistant that is not configured is refused at creation', async () => {
    const { status, body } = await api(server, 'POST', '/api/conversations', { assistant: 'nobody' });
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: 'unknown_assistant', message: expect.stringContaining("No assistant is named 'nobody'") });
  });
});

describe('a handshake that is never answered', () => {
  it('fails the node within the first-event timeout, naming the request', async () => {
    const quick = await startServer({ env: { SVC_AGENT_FIRST_EVENT_TIMEOUT_MS: '3000', SVC_SANDBOX: 'off' } });
    onCleanup(() => quick.stop());
    await api(quick, 'PATCH', '/api/config/assistants', { stuck: { kind: 'acp', command: ['node', FAKE_ACP], env: { FAKE_ACP_HANG: 'session/new' } } });
    // Before its handshake was bounded, only the node's timeout stopped it.
    const { workspace } = await registerProject(quick, { workflows: [node('acp-stuck', 'edit', 'say hi', { assistant: 'stuck', timeout: '40s' })] });
    const done = await waitForRun(quick, await startRun(quick, 'acp-stuck', { message: '', workspaceId: workspace.id }), undefined, 45_000);
    expect(done.events.find((e: Json) => e.type === 'node_failed')).toMatchObject({ code: 'agent_first_event_timeout' });
    expect(done.nodes.change.error).toMatch(/did not answer session\/new within 3000 ms/);
  }, 50_000);
});

describe("a preset's environment", () => {
  const envOf = async (assistant: string, names: string[]) => {
    const conversation = await createConversation(server, { assistant });
    const reply = await waitForReply(server, conversation.id, await send(server, conversation.id, names.map((name) => `env ${name}`).join('\n')));
    return reply.content as string;
  };

  it("gemini: of Google's variables only those Gemini CLI reads reach the agent", async () => {
    setProcessEnv({ GOOGLE_CLOUD_PROJECT: 'demo-project', GOOGLE_OAUTH_CLIENT_SECRET: 'not-for-gemini' });
    await api(server, 'PATCH', '/api/config/assistants', { 'like-gemini': { kind: 'acp', preset: 'gemini', command: ['node', FAKE_ACP] } });
    const said = await envOf('like-gemini', ['GOOGLE_CLOUD_PROJECT', 'GOOGLE_OAUTH_CLIENT_SECRET', 'GEMINI_CLI_NO_RELAUNCH']);
    expect(said).toBe('GOOGLE_CLOUD_PROJECT=demo-project\nGOOGLE_OAUTH_CLIENT_SECRET unset\nGEMINI_CLI_NO_RELAUNCH=1\n');
  });

  it("opencode: a repository's own opencode configuration is not loaded, and the permissions are given again last", async () => {
    await api(server, 'PATCH', '/api/config/assistants', { 'like-opencode': { kind: 'acp', preset: 'opencode', command: ['node', FAKE_ACP] } });
    const said = await envOf('like-opencode', ['OPENCODE_DISABLE_PROJECT_CONFIG', 'OPENCODE_PERMISSION']);
    const ask = { edit: 'ask', bash: 'ask', webfetch: 'ask' };
    expect(said).toBe(`OPENCODE_DISABLE_PROJECT_CONFIG=1\nOPENCODE_PERMISSION=${JSON.stringify(ask)}\n`);
  });
});

describe('the configuration of acp assistants', () => {
  it('GET /api/config shows them with env names and the key variable, never a value', async () => {
    const { status, body } = await api(server, 'GET', '/api/config');
    expect(status).toBe(200);
    expect(body.assistants.fake).toMatchObject({ kind: 'acp', command: ['node', FAKE_ACP], envNames: ['FAKE_ACP_SESSIONS'], apiKeyEnv: 'SVC_TEST_ACP_KEY' });
    expect(body.assistants.fake.env).toBeUndefined();
    expect(JSON.stringify(body)).not.toContain(SECRET);
    expect(JSON.stringify(body)).not.toContain(sessions);
  });

  it('a preset fills in the command; refusals are 400 with a message naming the assistant', async () => {
    const added = await api(server, 'PATCH', '/api/config/assistants', { gemini: { kind: 'acp', preset: 'gemini', model: 'gemini-2.5-flash' } });
    expect(added.status).toBe(200);
    expect(added.body.assistants.gemini).toMatchObject({ kind: 'acp', preset: 'gemini', command: ['gemini', '--acp'], model: 'gemini-2.5-flash' });
    const cases: Array<[Json, RegExp]> = [
      [{ x: { kind: 'acp', preset: 'nope' } }, /preset is one of gemini, opencode/],
      [{ x: { kind: 'acp', model: 'm' } }, /The acp assistant 'x' needs a command/],
      [{ x: { model: 'm' } }, /No assistant is named 'x': to add one, give "kind": "acp"/],
      [{ claude: { command: ['claude'] } }, /claude is built in: command is for acp assistants/],
      [{ codex: null }, /codex is built in and cannot be removed/],
      [{ Bad: { kind: 'acp', command: ['x'] } }, /an assistant's name is a lowercase name/],
      [{ x: { kind: 'acp', command: [] } }, /command names at least the executable/],
    ];
    for (const [patch, message] of cases) {
      const { status, body } = await api(server, 'PATCH', '/api/config/assistants', patch);
      expect(status, JSON.stringify(patch)).toBe(400);
      expect(body.error).toMatch(/^invalid_request$/);
      expect(`${body.message} ${JSON.stringify(body.details ?? [])}`, JSON.stringify(patch)).toMatch(message);
    }
    // Another preset brings its own command in place of the old preset's; a command of one's own stays.
    const moved = await api(server, 'PATCH', '/api/config/assistants', { gemini: { preset: 'opencode' } });
    expect(moved.body.assistants.gemini).toMatchObject({ preset: 'opencode', command: ['opencode', 'acp'] });
    await api(server, 'PATCH', '/api/config/assistants', { gemini: { command: ['/opt/gemini/bin/gemini', '--acp'] } });
    const kept = await api(server, 'PATCH', '/api/config/assistants', { gemini: { preset: 'gemini' } });
    expect(kept.body.assistants.gemini).toMatchObject({ preset: 'gemini', command: ['/opt/gemini/bin/gemini', '--acp'] });
    const removed = await api(server, 'PATCH', '/api/config/assistants', { gemini: null });
    expect(removed.status).toBe(200);
    expect(removed.body.assistants.gemini).toBeUndefined();
  });

  it("GET /api/health, with an acp assistant the default, tells whether its command's executable is found", async () => {
    await api(server, 'PATCH', '/api/config/assistants', { absent: { kind: 'acp', command: ['svc-no-such-acp-agent', '--acp'] } });
    const health = async (assistant: string) => {
      await api(server, 'PATCH', '/api/config/assistants', { [assistant]: { default: true } });
      return (await api(server, 'GET', '/api/health')).body.adapter;
    };
    const found = await health('fake');
    const missing = await health('absent');
    await api(server, 'PATCH', '/api/config/assistants', { claude: { default: true }, absent: null });
    expect(found).toMatchObject({ name: 'fake', available: true });
    expect(missing).toMatchObject({ name: 'absent', available: false });
  });

  it('default: true makes an acp assistant the default of nodes and conversations that name none', async () => {
    const made = await api(server, 'PATCH', '/api/config/assistants', { fake: { default: true } });
    expect(made.body.defaultAssistant).toBe('fake');
    const conversation = await createConversation(server);
    const reply = await waitForReply(server, conversation.id, await send(server, conversation.id, 'say by default'));
    await api(server, 'PATCH', '/api/config/assistants', { claude: { default: true } });
    expect(reply.content).toBe('by default');
  });
});
