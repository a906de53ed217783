// Agents in their OS sandbox (docs/decisions.md, "Agents in a sandbox"; issue 30), with the real
// Claude Code and Codex, offline, against stand-ins of their model APIs that ask their Bash / exec
// tool, one command a turn, to read a key planted in the test's HOME, write beside HOME, read a file
// of svc's home, call a local HTTP service that the workflow does not allow, and write inside the
// worktree. At `edit`: the key's text never reaches the model, nothing is written outside, the local
// service sees no request, and the inside write is the node's commit and in the run's diff. Allowed in
// `sandbox.network` (as `127.0.0.1:PORT`), the request arrives. With bubblewrap hidden from PATH, a
// Claude Code node fails `sandbox_unavailable` before its agent starts.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { TestServer } from '../helpers/server.js';
import { createConversation, send, waitForReply } from '../helpers/conversations.js';
import { api, cleanupAll, type Json, onCleanup, setProcessEnv, startRun, startServer, tempDir, waitForRun } from '../helpers/runs.js';
import {
  everythingSent,
  startClaudeBashStandIn,
  startCodexCommandsStandIn,
  startLocalService,
  startNetworkTrap,
  type NetworkTrap,
  type StandIn,
} from '../support/model-standins.js';
import { agentHome, offlineAgentEnv, REAL_CLAUDE, REAL_CODEX, saveProcessEnv } from '../support/real-agents.js';
import { makeRepository } from '../helpers/git.js';
import { pathWithout as linkPathWithout } from '../support/path-without.js';

const KEY_ENV = 'SVC_TEST_STANDIN_KEY';
const KEY_TEXT = 'PLANTED-PRIVATE-KEY-7f3a9c';
const SVC_SECRET = 'SVC-HOME-SECRET-41d2';

let server: TestServer;
let workspaceId: string;
let trap: NetworkTrap;
let local: Awaited<ReturnType<typeof startLocalService>>;
let home: string;
let repo: string;

/**
 * What the model asks for, one command a turn. A request through the proxy the sandbox gives (curl
 * with `--noproxy ''`, as loopback is otherwise exempt) and a direct one (`--noproxy '*'`).
 */
const commands = (svcHome: string) => [
  'cat ~/.ssh/id_test',
  'touch "$HOME/outside"; echo touched=$?',
  `cat ${join(svcHome, 'planted-secret.txt')}`,
  `curl -sS -m 5 --noproxy '' ${local.url}/via-proxy; curl -sS -m 5 --noproxy '*' ${local.url}/direct; echo curl=$?`,
  'cat README.md && echo inside > inside.txt; echo wrote=$?',
];

const node = (name: string, assistant: 'claude' | 'codex', extra: Json = {}) => ({
  name,
  description: `one ${assistant} node at edit`,
  nodes: [{ id: 'change', assistant, permissions: 'edit', prompt: 'Do the task: $ARGUMENTS', ...extra }],
});

beforeAll(async () => {
  local = await startLocalService();
  trap = await startNetworkTrap();
  onCleanup(() => Promise.all([local.close(), trap.close()]));
  repo = realpathSync(await tempDir('svc-sandbox-repo-'));
  await mkdir(join(repo, '.svc', 'workflows'), { recursive: true });
  const allowed = { sandbox: { network: [`127.0.0.1:${local.port}`] } };
  for (const workflow of [
    node('claude-edit', 'claude'),
    node('codex-edit', 'codex'),
    node('claude-allowed', 'claude', allowed),
    node('codex-allowed', 'codex', allowed),
  ])
    await writeFile(join(repo, '.svc', 'workflows', `${workflow.name}.yaml`), stringify(workflow));
  makeRepository(repo, { 'README.md': '# demo\n' });
  setProcessEnv({ [KEY_ENV]: 'sk-standin-not-a-real-key', IS_SANDBOX: '' });
  server = await startServer({ env: { SVC_CLAUDE_BIN: REAL_CLAUDE, SVC_CODEX_BIN: REAL_CODEX } });
  await writeFile(join(server.home, 'planted-secret.txt'), `${SVC_SECRET}\n`);
  const registered = await api(server, 'POST', '/api/workspaces', { path: repo });
  expect(registered.status).toBe(201);
  workspaceId = registered.body.id;
}, 60_000);
afterAll(cleanupAll);

const restoreEnv: Array<() => void> = [];
beforeEach(async () => {
  restoreEnv.push(saveProcessEnv());
  home = await agentHome('svc-sandbox-home-');
  onCleanup(() => rm(home, { recursive: true, force: true }));
  await mkdir(join(home, '.ssh'), { recursive: true });
  await writeFile(join(home, '.ssh', 'id_test'), `${KEY_TEXT}\n`);
  Object.assign(process.env, await offlineAgentEnv(home, trap));
  local.hits.length = 0;
});
afterEach(() => {
  restoreEnv.pop()?.();
  expect(trap.attempts, 'requests that would have left the machine').toEqual([]);
});

/** A stand-in for `assistant` asking for the commands, configured as the assistant's endpoint. */
async function standIn(assistant: 'claude' | 'codex', on = server): Promise<StandIn> {
  const model =
    assistant === 'claude' ? await startClaudeBashStandIn(commands(server.home), 'DONE') : await startCodexCommandsStandIn(commands(server.home), 'DONE');
  onCleanup(() => model.close());
  const endpoint = assistant === 'claude' ? { baseUrl: model.url, apiKeyEnv: KEY_ENV } : { baseUrl: `${model.url}/v1`, apiKeyEnv: KEY_ENV, model: 'gpt-5' };
  expect((await api(on, 'PATCH', '/api/config/assistants', { [assistant]: endpoint })).status).toBe(200);
  return model;
}

async function runOnWorkspace(workflow: string, on = server, workspace = workspaceId): Promise<Json> {
  const runId = await startRun(on, workflow, { message: 'the task', workspaceId: workspace });
  return waitForRun(on, runId, undefined, 90_000);
}

/** The inside write is the node's commit, and the run's diff lists it, alone. */
async function expectInsideCommitted(run: Json): Promise<void> {
  const commit = run.nodes.change.commit as string;
  expect(commit).toMatch(/^[0-9a-f]{40}$/);
  const files = execFileSync('git', ['show', '--name-only', '--format=', commit], { cwd: run.cwd, encoding: 'utf8' }).trim().split('\n');
  expect(files).toEqual(['inside.txt']);
  const diff = await api(server, 'GET', `/api/workflows/runs/${run.id}/diff`);
  expect(diff.body.files.map((file: Json) => [file.path, file.status])).toEqual([['inside.txt', 'added']]);
}

const sandboxDenied = (run: Json) =>
  run.events.filter((e: Json) => e.type === 'sandbox_denied').map(({ nodeId, kind, target, tool }: Json) => ({ nodeId, kind, target, tool }));

function expectContained(run: Json, model: StandIn): void {
  expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
  expect(run.nodes.change).toMatchObject({ status: 'completed', output: 'DONE', permissions: 'edit', sandbox: 'on' });
  const sent = everythingSent(model);
  // The model was asked and answered: the commands ran, and what came back holds no secret.
  expect(sent).toContain('inside.txt');
  expect(sent).not.toContain(KEY_TEXT);
  expect(sent).not.toContain(SVC_SECRET);
  expect(existsSync(join(home, 'outside'))).toBe(false);
  expect(local.hits).toEqual([]);
  expect(readFileSync(join(run.cwd, 'inside.txt'), 'utf8')).toBe('inside\n');
}

describe('the real Claude Code in its sandbox', { timeout: 120_000 }, () => {
  it('edit: the key and svc’s home stay unread, nothing is written outside, the local service sees nothing, and the inside write is committed', async () => {
    const model = await standIn('claude');
    const run = await runOnWorkspace('claude-edit');
    expectContained(run, model);
    // Measured: a denied read looks absent, a write outside is a read-only file system, a host off the list a refusal of its proxy.
    const sent = everythingSent(model);
    expect(sent).toMatch(/id_test: No such file or directory/);
    expect(sent).toMatch(/outside.*Read-only file system/);
    expect(sent).toMatch(/blocked by network allowlist/);
    // Each refusal is a sandbox_denied event, and the node counts them.
    const denied = sandboxDenied(run);
    expect(denied).toEqual(
      expect.arrayContaining([
        { nodeId: 'change', kind: 'fs', target: join(realpathSync(home), '.ssh', 'id_test'), tool: 'Bash' },
        { nodeId: 'change', kind: 'fs', target: join(realpathSync(home), 'outside'), tool: 'Bash' },
        { nodeId: 'change', kind: 'fs', target: join(realpathSync(server.home), 'planted-secret.txt'), tool: 'Bash' },
        { nodeId: 'change', kind: 'net', target: `127.0.0.1:${local.port}`, tool: 'Bash' },
      ]),
    );
    expect(run.nodes.change.sandboxDenied).toBe(denied.length);
    await expectInsideCommitted(run);
  });

  it('edit with 127.0.0.1:PORT in sandbox.network: the request through its proxy arrives', async () => {
    const model = await standIn('claude');
    const run = await runOnWorkspace('claude-allowed');
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    // The proxied request arrives; the direct one still cannot leave the sandbox's network namespace.
    expect(local.hits).toEqual(['/via-proxy']);
    expect(everythingSent(model)).not.toContain(KEY_TEXT);
  });

  it('edit: a Bash call asking to leave the sandbox (dangerouslyDisableSandbox) still runs inside it, and is an escape event', async () => {
    const model = await startClaudeBashStandIn([{ command: 'cat ~/.ssh/id_test; echo inside > inside.txt', dangerouslyDisableSandbox: true }], 'DONE');
    onCleanup(() => model.close());
    expect((await api(server, 'PATCH', '/api/config/assistants', { claude: { baseUrl: model.url, apiKeyEnv: KEY_ENV } })).status).toBe(200);
    const run = await runOnWorkspace('claude-edit');
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(everythingSent(model)).not.toContain(KEY_TEXT);
    expect(sandboxDenied(run)).toEqual(
      expect.arrayContaining([{ nodeId: 'change', kind: 'escape', target: 'cat ~/.ssh/id_test; echo inside > inside.txt', tool: 'Bash' }]),
    );
  });

  it('edit with bubblewrap hidden from PATH: the node fails sandbox_unavailable, naming it, and the agent never starts', async () => {
    const model = await standIn('claude');
    process.env.PATH = await pathWithout('bwrap');
    const run = await runOnWorkspace('claude-edit');
    expect(run.status).toBe('failed');
    expect(run.errorCode).toBe('sandbox_unavailable');
    expect(run.nodes.change).toMatchObject({ status: 'failed', errorCode: 'sandbox_unavailable', sandbox: 'on' });
    expect(run.nodes.change.error).toMatch(/bubblewrap/);
    expect(model.requests).toEqual([]);
  });

  it('edit on a server with SVC_SANDBOX=off: the node says it ran unsandboxed, and the same commands reach the key and write outside', async () => {
    // What the tests above would see without the sandbox: the checks they make are not empty.
    const open = await startServer({ env: { SVC_CLAUDE_BIN: REAL_CLAUDE, SVC_CODEX_BIN: REAL_CODEX, SVC_SANDBOX: 'off' } });
    const registered = await api(open, 'POST', '/api/workspaces', { path: repo });
    expect(registered.status).toBe(201);
    const model = await standIn('claude', open);
    const run = await runOnWorkspace('claude-edit', open, registered.body.id);
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(run.nodes.change).toMatchObject({ permissions: 'edit', sandbox: 'off', sandboxOff: 'SVC_SANDBOX=off' });
    expect(everythingSent(model)).toContain(KEY_TEXT);
    expect(existsSync(join(home, 'outside'))).toBe(true);
    // Unconfined, the direct request reaches the local service, and the proxied one the test's trap (its proxy variables).
    expect(local.hits).toEqual(['/direct']);
    expect(trap.attempts).toEqual([`${local.url}/via-proxy`]);
    trap.attempts.length = 0;
  });
});

describe('the real Codex with its permission profile', { timeout: 120_000 }, () => {
  it('edit: the key and svc’s home stay unread, nothing is written outside, the local service sees nothing, and the inside write is committed', async () => {
    const model = await standIn('codex');
    const run = await runOnWorkspace('codex-edit');
    expectContained(run, model);
    // Measured: a denied read is "Permission denied", a write outside a read-only file system, a host off the list refused by its proxy.
    const sent = everythingSent(model);
    expect(sent).toMatch(/id_test: Permission denied/);
    expect(sent).toMatch(/outside.*Read-only file system/);
    expect(sent).toMatch(/blocked/);
    // Codex leaves a command its sandbox refused at once out of its --json (measured): the refusals svc sees are those it reported.
    const denied = sandboxDenied(run);
    // The port comes from the proxy's `{"status":"blocked",…,"port":…}` answer when the command's
    // output holds it; when Codex reports only its own `Network access to "127.0.0.1" was blocked`
    // (seen in one CI run of many), the target is the host alone, as contract.md says.
    expect(denied).toEqual(
      expect.arrayContaining([
        { nodeId: 'change', kind: 'net', target: expect.stringMatching(new RegExp(`^127\\.0\\.0\\.1(:${local.port})?$`)), tool: 'exec' },
      ]),
    );
    expect(run.nodes.change.sandboxDenied).toBe(denied.length);
    await expectInsideCommitted(run);
  });

  it('edit with 127.0.0.1:PORT in sandbox.network: the request through its proxy arrives', async () => {
    const model = await standIn('codex');
    const run = await runOnWorkspace('codex-allowed');
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(local.hits).toEqual(['/via-proxy']);
    expect(everythingSent(model)).not.toContain(KEY_TEXT);
  });

  it("a conversation's reply at read (the default) runs in the profile too: the key and svc's home stay unread", async () => {
    // Without it, codex's read-only sandbox reads anywhere (measured with 0.169): a reply is sandboxed as a node is.
    const model = await standIn('codex');
    const conversation = await createConversation(server, { assistant: 'codex', workspace_id: workspaceId });
    const reply = await waitForReply(server, conversation.id, await send(server, conversation.id, 'the task'), 90_000);
    expect(reply).toMatchObject({ role: 'assistant', content: 'DONE' });
    // The refusals svc saw are counted on the reply (and logged), as a node counts them.
    expect(reply.metadata.sandboxDenied).toBeGreaterThanOrEqual(1);
    const sent = everythingSent(model);
    // Each command ran, and was refused (measured words: a denied read is "Permission denied" there).
    expect(sent).toMatch(/id_test: Permission denied/);
    expect(sent).toMatch(/planted-secret.txt: No such file or directory/);
    expect(sent).not.toContain(KEY_TEXT);
    expect(sent).not.toContain(SVC_SECRET);
    expect(existsSync(join(home, 'outside'))).toBe(false);
    expect(local.hits).toEqual([]);
  });

  it('edit with bubblewrap hidden from PATH: codex brings its own, and runs contained', async () => {
    const model = await standIn('codex');
    process.env.PATH = await pathWithout('bwrap');
    const run = await runOnWorkspace('codex-edit');
    expectContained(run, model);
  });
});

/** A PATH without `name` (test/support/path-without.ts). */
const pathWithout = async (name: string): Promise<string> => linkPathWithout(name, await tempDir('svc-path-'));
