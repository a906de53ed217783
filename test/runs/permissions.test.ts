// Permissions of agent nodes (docs/contract.md, "Permissions") through the real server, against the fake
// agents, which honour the flags as the real CLIs do: what each node's agent was allowed to do is
// on the command line, on the node's record and in the run's graph, and decides which files appear.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { FAKE_CODEX } from '../helpers/conversations.js';
import { cleanupAll, type Json, projectWithWorkflows, readJsonLines, setProcessEnv, startRun, startServer, tempDir, waitForRun } from '../helpers/runs.js';

const CLAUDE_FLAGS = {
  read: ['--permission-mode', 'default'],
  edit: ['--permission-mode', 'acceptEdits', '--allowedTools', 'Bash'],
  full: ['--permission-mode', 'bypassPermissions'],
};
/** Codex at `read` and `edit`: a permission profile instead of `--sandbox` (docs/decisions.md, "Agents in a sandbox"). */
const codexProfile = (base: string) => [
  '-c',
  'default_permissions="svc"',
  '-c',
  `permissions.svc.extends="${base}"`,
  '-c',
  expect.stringMatching(/^permissions\.svc\.filesystem=\{/),
  // Its network proxy, allowing no host: a refused request is said (docs/decisions.md, "Agents in a sandbox").
  '-c',
  'permissions.svc.network.enabled=true',
  '-c',
  'permissions.svc.network.domains={}',
  '-c',
  'features.network_proxy=true',
];
const CODEX_FLAGS = {
  read: codexProfile(':read-only'),
  edit: codexProfile(':workspace'),
  full: ['--dangerously-bypass-approvals-and-sandbox'],
};
/** The argv without Claude Code's `--settings <json>`, and the settings (undefined without). */
function claudeSettings(argv: string[]): [string[], Json | undefined] {
  const at = argv.indexOf('--settings');
  if (at < 0) return [argv, undefined];
  return [[...argv.slice(0, at), ...argv.slice(at + 2)], JSON.parse(argv[at + 1]!)];
}

/** A node whose agent tries to write `<id>.txt` with its file tool and `<id>-sh.txt` with a command. */
const claudeNode = (id: string, extra: Json = {}) => ({
  id,
  prompt: `write [fake:write=${id}.txt] [fake:bash=sleep 0.1; echo ${id} > ${id}-sh.txt] [fake:reply=${id} done]`,
  ...extra,
});
const codexNode = (id: string, extra: Json = {}) => ({
  id,
  assistant: 'codex',
  prompt: `write [fake:exec=sleep 0.1; echo ${id} > ${id}-sh.txt] [fake:patch=${id}.txt]`,
  ...extra,
});

let server: TestServer;
let project: string;
let logs: string;
const claudeCalls = (): Json[] => readJsonLines(join(logs, 'claude.jsonl'));
const codexCalls = (): Json[] => readJsonLines(join(logs, 'codex.jsonl'));
const callOf = (calls: Json[], id: string) => calls.find((call) => String(call.stdin).includes(`=${id}.txt]`));
const written = (name: string) => existsSync(join(project, name));

beforeAll(async () => {
  logs = await tempDir('svc-perm-logs-');
  project = await projectWithWorkflows([
    {
      name: 'claude-perms',
      nodes: [claudeNode('plain'), claudeNode('reader', { permissions: 'read' }), claudeNode('editor', { permissions: 'edit' })],
    },
    { name: 'claude-read-all', permissions: 'read', nodes: [claudeNode('inherits'), claudeNode('overrides', { permissions: 'edit' })] },
    { name: 'codex-perms', nodes: [codexNode('cplain'), codexNode('creader', { permissions: 'read' })] },
    { name: 'claude-full', nodes: [claudeNode('unchecked', { permissions: 'full' }), { id: 'after', bash: 'echo still here' }] },
    { name: 'codex-full', nodes: [codexNode('cfull', { permissions: 'full' })] },
  ]);
  setProcessEnv({ FAKE_CLAUDE_LOG: join(logs, 'claude.jsonl'), FAKE_CODEX_LOG: join(logs, 'codex.jsonl'), IS_SANDBOX: '' });
  server = await startServer({ env: { SVC_CODEX_BIN: FAKE_CODEX } });
});
afterAll(cleanupAll);

describe('claude nodes', () => {
  let run: Json;
  beforeAll(async () => {
    run = await waitForRun(server, await startRun(server, 'claude-perms', { message: '', cwd: project }));
  });

  it('edit by default: acceptEdits with Bash allowed, so the file tool and the command both write', () => {
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(claudeSettings(callOf(claudeCalls(), 'plain')!.argv.slice(4))[0]).toEqual(CLAUDE_FLAGS.edit);
    expect(claudeSettings(callOf(claudeCalls(), 'editor')!.argv.slice(4))[0]).toEqual(CLAUDE_FLAGS.edit);
    for (const name of ['plain.txt', 'plain-sh.txt', 'editor.txt', 'editor-sh.txt']) expect(written(name), name).toBe(true);
    // In Claude Code's own sandbox, on the node's record too.
    expect(claudeSettings(callOf(claudeCalls(), 'plain')!.argv)[1]).toMatchObject({
      sandbox: { enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false, filesystem: { allowWrite: expect.arrayContaining([project]) } },
    });
    expect(run.nodes.plain).toMatchObject({ permissions: 'edit', sandbox: 'on' });
    expect(run.nodes.plain.sandboxOff).toBeUndefined();
  });

  it("read: the default permission mode, so the agent is refused every write and the node's files do not exist", () => {
    expect(claudeSettings(callOf(claudeCalls(), 'reader')!.argv.slice(4))[0]).toEqual(CLAUDE_FLAGS.read);
    expect(written('reader.txt')).toBe(false);
    expect(written('reader-sh.txt')).toBe(false);
    // The refusals are in what the agent printed (agent_tool events are built from them), and its reply says so.
    expect(run.nodes.reader).toMatchObject({ status: 'completed', output: 'reader done', permissions: 'read' });
  });

  it('read: each refused call is one denied agent_tool event, though the agent says it twice (permission_denied, then the tool_result)', () => {
    const tools = (nodeId: string) =>
      run.events.filter((e: Json) => e.type === 'agent_tool' && e.nodeId === nodeId).map((e: Json) => `${e.status} ${e.summary}`);
    expect(tools('reader')).toEqual(['denied Write reader.txt', 'denied Bash: sleep 0.1; echo reader > reader-sh.txt']);
    expect(run.nodes.reader).toMatchObject({
      toolCalls: 2,
      toolsDenied: ['Write reader.txt', 'Bash: sleep 0.1; echo reader > reader-sh.txt'],
      toolsDeniedCount: 2,
    });
    expect(tools('editor')).toEqual(['ok Write editor.txt', 'ok Bash: sleep 0.1; echo editor > editor-sh.txt']);
    expect(run.nodes.editor).toMatchObject({ toolCalls: 2, toolsDenied: [], toolsDeniedCount: 0 });
  });

  it('records the permissions in effect on each agent node and in the run graph, none on other nodes', () => {
    expect(Object.fromEntries(Object.entries(run.nodes).map(([id, node]) => [id, (node as Json).permissions]))).toEqual({
      plain: 'edit',
      reader: 'read',
      editor: 'edit',
    });
    expect(run.graph.map((node: Json) => [node.id, node.permissions])).toEqual([
      ['plain', 'edit'],
      ['reader', 'read'],
      ['editor', 'edit'],
    ]);
  });

  it("a workflow's permissions apply to its nodes; a node's own win", async () => {
    const other = await waitForRun(server, await startRun(server, 'claude-read-all', { message: '', cwd: project }));
    expect(other.status).toBe('completed');
    expect(claudeSettings(callOf(claudeCalls(), 'inherits')!.argv.slice(4))[0]).toEqual(CLAUDE_FLAGS.read);
    expect(claudeSettings(callOf(claudeCalls(), 'overrides')!.argv.slice(4))[0]).toEqual(CLAUDE_FLAGS.edit);
    expect([written('inherits.txt'), written('overrides.txt')]).toEqual([false, true]);
    expect([other.nodes.inherits.permissions, other.nodes.overrides.permissions]).toEqual(['read', 'edit']);
  });
});

describe('codex nodes', () => {
  it('edit: the workspace-write sandbox, where commands and patches write; read: the read-only sandbox, where they fail', async () => {
    const run = await waitForRun(server, await startRun(server, 'codex-perms', { message: '', cwd: project }));
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    const argv = (id: string) => callOf(codexCalls(), id)!.argv as string[];
    expect(argv('cplain')).toEqual(['exec', '--json', '--skip-git-repo-check', ...CODEX_FLAGS.edit, '-']);
    expect(argv('creader')).toEqual(['exec', '--json', '--skip-git-repo-check', ...CODEX_FLAGS.read, '-']);
    expect([written('cplain.txt'), written('cplain-sh.txt')]).toEqual([true, true]);
    expect([written('creader.txt'), written('creader-sh.txt')]).toEqual([false, false]);
    expect([run.nodes.cplain.permissions, run.nodes.creader.permissions]).toEqual(['edit', 'read']);
    // The read-only sandbox's refusal of the command is a failed call; its rejected patch, which codex reports only on stderr, none.
    const tools = (nodeId: string) =>
      run.events.filter((e: Json) => e.type === 'agent_tool' && e.nodeId === nodeId).map((e: Json) => `${e.status} ${e.summary}`);
    expect(tools('creader')).toEqual(['failed exec: sleep 0.1; echo creader > creader-sh.txt (exit 1)']);
    expect(tools('cplain')).toEqual(['ok exec: sleep 0.1; echo cplain > cplain-sh.txt', 'ok patch: add cplain.txt']);
  });

  it('full: no sandbox at all', async () => {
    const run = await waitForRun(server, await startRun(server, 'codex-full', { message: '', cwd: project }));
    expect(run.status).toBe('completed');
    expect(callOf(codexCalls(), 'cfull')!.argv).toEqual(['exec', '--json', '--skip-git-repo-check', ...CODEX_FLAGS.full, '-']);
    expect(written('cfull-sh.txt')).toBe(true);
  });
});

describe('claude with permissions full', () => {
  const asRoot = process.getuid?.() === 0;

  it(
    asRoot
      ? 'as root without IS_SANDBOX=1: the node fails at once with agent_refused, saying why and what to do; the agent never starts'
      : 'not as root: bypassPermissions, and the agent writes',
    async () => {
      const run = await waitForRun(server, await startRun(server, 'claude-full', { message: '', cwd: project }));
      if (asRoot) {
        expect(run.status).toBe('failed');
        expect(run.nodes.unchecked).toMatchObject({ status: 'failed', permissions: 'full', attempts: 1 });
        expect(run.nodes.unchecked.error).toMatch(/root/);
        expect(run.nodes.unchecked.error).toMatch(/IS_SANDBOX=1/);
        expect(run.nodes.unchecked.error).toMatch(/non-root user/);
        expect(run.events.find((e: Json) => e.type === 'node_failed' && e.nodeId === 'unchecked')).toMatchObject({ code: 'agent_refused' });
        expect(callOf(claudeCalls(), 'unchecked')).toBeUndefined();
        expect(written('unchecked.txt')).toBe(false);
      } else {
        expect(run.status).toBe('completed');
        expect(claudeSettings(callOf(claudeCalls(), 'unchecked')!.argv.slice(4))[0]).toEqual(CLAUDE_FLAGS.full);
        expect(written('unchecked.txt')).toBe(true);
      }
      // The independent bash node runs either way.
      expect(run.nodes.after).toMatchObject({ status: 'completed', output: 'still here' });
    },
  );

  it('with IS_SANDBOX=1 in the server environment: bypassPermissions, and the agent writes', async () => {
    setProcessEnv({ IS_SANDBOX: '1' });
    const run = await waitForRun(server, await startRun(server, 'claude-full', { message: '', cwd: project }));
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(claudeSettings(callOf(claudeCalls(), 'unchecked')!.argv.slice(4))).toEqual([CLAUDE_FLAGS.full, undefined]);
    expect([written('unchecked.txt'), written('unchecked-sh.txt')]).toEqual([true, true]);
    // `full` is not sandboxed, and its record says so.
    expect(run.nodes.unchecked).toMatchObject({ permissions: 'full', sandbox: 'off', sandboxOff: 'level full' });
  });
});
