// Agent nodes in their sandbox through the real server, against the fake agents (docs/decisions.md,
// "Agents in a sandbox"): the node's record says whether its agent was sandboxed and why not; svc
// checks the sandbox can start before it spawns the agent (`sandbox_unavailable`, the agent never
// starts); `SVC_SANDBOX=off` gives the old flags and says so; each sandboxed call has a TMPDIR of its
// own in svc's home, removed when it ends. The real CLIs' confinement: test/agents-real/sandbox.test.ts.
import { existsSync } from 'node:fs';
import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_CODEX } from '../helpers/conversations.js';
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
import { pathWithout as linkPathWithout } from '../support/path-without.js';

let project: string;
let logs: string;
const claudeCalls = () => readJsonLines(join(logs, 'claude.jsonl'));
const codexCalls = () => readJsonLines(join(logs, 'codex.jsonl'));
const callOf = (calls: Json[], marker: string) => calls.find((call) => String(call.stdin).includes(`[${marker}]`));

beforeAll(async () => {
  logs = await tempDir('svc-sandbox-logs-');
  project = await makeProject([
    { name: 'claude-edit', nodes: [{ id: 'a', prompt: 'go [claude-edit] [fake:bash=echo $TMPDIR > tmpdir.txt]' }] },
    { name: 'claude-lines', nodes: [{ id: 'l', prompt: 'go [fake:lines=$ARGUMENTS]' }] },
    { name: 'codex-edit', nodes: [{ id: 'c', assistant: 'codex', prompt: 'go [codex-edit]' }] },
    {
      name: 'claude-wide',
      sandbox: { network: ['registry.npmjs.org'] },
      nodes: [{ id: 'w', prompt: 'go [claude-wide]', sandbox: { read: ['~/.cache/pip'] } }],
    },
  ]);
  setProcessEnv({ FAKE_CLAUDE_LOG: join(logs, 'claude.jsonl'), FAKE_CODEX_LOG: join(logs, 'codex.jsonl') });
});
afterAll(cleanupAll);

const settingsOf = (argv: string[]): Json | undefined => {
  const at = argv.indexOf('--settings');
  return at < 0 ? undefined : JSON.parse(argv[at + 1]!);
};

describe('on a server with the sandbox on (the default)', () => {
  it("an edit node's agent gets its sandbox, the record says so, and its TMPDIR is its own, gone after", async () => {
    const server = await startServer({ env: { SVC_CODEX_BIN: FAKE_CODEX } });
    const run = await waitForRun(server, await startRun(server, 'claude-edit', { message: '', cwd: project }));
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(run.nodes.a).toMatchObject({ permissions: 'edit', sandbox: 'on' });
    const settings = settingsOf(callOf(claudeCalls(), 'claude-edit')!.argv)!;
    const tmp = settings.sandbox.filesystem.allowWrite.find((path: string) => path.includes(join('tmp', 'agent-')));
    expect(tmp.startsWith(join(server.home, 'tmp'))).toBe(true);
    expect(existsSync(tmp)).toBe(false);
    expect(settings.sandbox.filesystem.denyRead).toEqual(expect.arrayContaining([join(process.env.HOME!, '.ssh'), server.home]));
  });

  it('a workflow and its node widen the sandbox', async () => {
    const server = await startServer();
    const run = await waitForRun(server, await startRun(server, 'claude-wide', { message: '', cwd: project }));
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    const settings = settingsOf(callOf(claudeCalls(), 'claude-wide')!.argv)!;
    expect(settings.sandbox.network.allowedDomains).toEqual(['registry.npmjs.org']);
    expect(settings.sandbox.filesystem.allowRead).toEqual(expect.arrayContaining([join(process.env.HOME!, '.cache', 'pip')]));
  });

  it('codex gets a permission profile instead of --sandbox', async () => {
    const server = await startServer({ env: { SVC_CODEX_BIN: FAKE_CODEX } });
    const run = await waitForRun(server, await startRun(server, 'codex-edit', { message: '', cwd: project }));
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    const argv = callOf(codexCalls(), 'codex-edit')!.argv as string[];
    expect(argv).not.toContain('--sandbox');
    expect(argv).toEqual(expect.arrayContaining(['default_permissions="svc"', 'permissions.svc.extends=":workspace"']));
    expect(run.nodes.c).toMatchObject({ sandbox: 'on' });
  });

  it('with bubblewrap missing from PATH: the node and the run fail sandbox_unavailable, naming it, and the agent never starts', async () => {
    const server = await startServer();
    const before = claudeCalls().length;
    const saved = process.env.PATH;
    process.env.PATH = await pathWithout('bwrap');
    const run = await waitForRun(server, await startRun(server, 'claude-edit', { message: '', cwd: project })).finally(() => {
      process.env.PATH = saved;
    });
    expect(run.status).toBe('failed');
    expect(run.errorCode).toBe('sandbox_unavailable');
    expect(run.nodes.a).toMatchObject({ status: 'failed', errorCode: 'sandbox_unavailable', sandbox: 'on' });
    expect(run.nodes.a.error).toMatch(/bubblewrap \(bwrap\)/);
    expect(run.events.find((e: Json) => e.type === 'node_failed')).toMatchObject({ nodeId: 'a', code: 'sandbox_unavailable' });
    expect(claudeCalls().length).toBe(before);
  });
});

describe("the sandbox's refusals", () => {
  it("a <sandbox_violations> block in a tool result (Claude Code 2.1.328's words) is a sandbox_denied event, counted on the node", async () => {
    const lines = join(logs, 'violations.jsonl');
    const stderr = '<sandbox_violations>\ndeny network-outbound 203.0.113.7:443 (host is not on the allow list)\n</sandbox_violations>';
    await writeFile(
      lines,
      [
        { type: 'assistant', message: { id: 'm1', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'curl https://203.0.113.7' } }] } },
        {
          type: 'user',
          message: { content: [{ type: 'tool_result', tool_use_id: 't1', content: `Connection blocked by network allowlist\n${stderr}`, is_error: false }] },
          tool_use_result: { stdout: 'Connection blocked by network allowlist', stderr },
        },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n') + '\n',
    );
    const server = await startServer();
    const runId = await startRun(server, 'claude-lines', { message: lines, cwd: project });
    const run = await waitForRun(server, runId);
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(run.events.filter((e: Json) => e.type === 'sandbox_denied').map(({ nodeId, kind, target, tool }: Json) => ({ nodeId, kind, target, tool }))).toEqual(
      [{ nodeId: 'l', kind: 'net', target: '203.0.113.7:443', tool: 'Bash' }],
    );
    expect(run.nodes.l).toMatchObject({ sandbox: 'on', sandboxDenied: 1 });
  });
});

describe('a codex older than the permission profiles svc uses', () => {
  it('gets --sandbox instead, and the node says its sandbox was weakened and why', async () => {
    // Another path to the fake: the version is asked once per executable.
    const old = join(await tempDir('svc-old-codex-'), 'codex');
    await symlink(FAKE_CODEX, old);
    const saved = process.env.FAKE_CODEX_VERSION;
    process.env.FAKE_CODEX_VERSION = '0.120.0';
    const server = await startServer({ env: { SVC_CODEX_BIN: old } });
    const run = await waitForRun(server, await startRun(server, 'codex-edit', { message: '', cwd: project })).finally(() => {
      if (saved === undefined) delete process.env.FAKE_CODEX_VERSION;
      else process.env.FAKE_CODEX_VERSION = saved;
    });
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    const argv = codexCalls().at(-1)!.argv as string[];
    expect(argv).toEqual(expect.arrayContaining(['--sandbox', 'workspace-write']));
    expect(argv.join(' ')).not.toContain('default_permissions');
    expect(run.nodes.c).toMatchObject({ sandbox: 'on' });
    expect(run.nodes.c.sandboxWarning).toMatch(/codex 0\.120\.0 predates the permission profiles svc uses \(0\.169\.0\).*not reads/);
  });
});

describe('on a server with SVC_SANDBOX=off', () => {
  it('agents get their old flags, and every node says it ran unsandboxed and why', async () => {
    const server = await startServer({ env: { SVC_SANDBOX: 'off', SVC_CODEX_BIN: FAKE_CODEX } });
    const claude = await waitForRun(server, await startRun(server, 'claude-edit', { message: '', cwd: project }));
    expect(claude.status, JSON.stringify(claude.nodes)).toBe('completed');
    expect(claude.nodes.a).toMatchObject({ permissions: 'edit', sandbox: 'off', sandboxOff: 'SVC_SANDBOX=off' });
    expect(
      settingsOf(
        claudeCalls()
          .filter((call) => String(call.stdin).includes('[claude-edit]'))
          .at(-1)!.argv,
      ),
    ).toBeUndefined();
    const codex = await waitForRun(server, await startRun(server, 'codex-edit', { message: '', cwd: project }));
    expect(codexCalls().at(-1)!.argv).toEqual(expect.arrayContaining(['--sandbox', 'workspace-write']));
    expect(codex.nodes.c).toMatchObject({ sandbox: 'off', sandboxOff: 'SVC_SANDBOX=off' });
  });
});

/** A PATH without `name` (test/support/path-without.ts). */
const pathWithout = async (name: string): Promise<string> => linkPathWithout(name, await tempDir('svc-path-'));
