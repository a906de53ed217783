// What a conversation's agent may do (docs/contract.md, "Permissions"): `read` out of the box, the
// assistant configuration's default (`PATCH /api/config/assistants`), or the conversation's own
// (`POST /api/conversations`), against the fake agents, which honour the flags as the real CLIs do.
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { api, cleanupAll, FAKE_CLAUDE, onCleanup, readJsonLines, setProcessEnv, tempDir, type Json } from '../helpers/runs.js';
import { createConversation, FAKE_CODEX, send, waitForReply } from '../helpers/conversations.js';

let server: TestServer;
let cwd: string;
let logs: string;
let workspace: string;

beforeAll(async () => {
  logs = await tempDir('svc-conv-perm-logs-');
  // A workspace registered by path: its conversations' agents run in that directory.
  cwd = realpathSync(await tempDir('svc-conv-perm-cwd-'));
  setProcessEnv({ FAKE_CLAUDE_LOG: join(logs, 'claude.jsonl'), FAKE_CODEX_LOG: join(logs, 'codex.jsonl') });
  server = await startTestServer({ env: { SVC_CLAUDE_BIN: FAKE_CLAUDE, SVC_CODEX_BIN: FAKE_CODEX } });
  onCleanup(() => server.stop());
  const registered = await api(server, 'POST', '/api/workspaces', { path: cwd });
  expect(registered.status).toBe(201);
  workspace = registered.body.id;
});

const create = (body: Json = {}) => createConversation(server, { workspace_id: workspace, ...body });
afterAll(cleanupAll);

/** Sends a message whose agent tries to write `<name>.txt`; resolves to the agent's argv once answered. */
async function tryWrite(conversation: Json, name: string): Promise<string[]> {
  const directive = conversation.assistant === 'codex' ? `[fake:patch=${name}.txt]` : `[fake:write=${name}.txt]`;
  await waitForReply(server, conversation.id, await send(server, conversation.id, `write ${directive}`));
  const log = conversation.assistant === 'codex' ? 'codex.jsonl' : 'claude.jsonl';
  return readJsonLines(join(logs, log)).find((call) => String(call.stdin).includes(directive))!.argv as string[];
}
const written = (name: string) => existsSync(join(cwd, `${name}.txt`));

/**
 * The argv without its sandbox (a reply's agent runs in it as a node's does: docs/decisions.md,
 * "Agents in a sandbox"), and what the sandbox was: claude's `--settings`, codex's profile base.
 */
function sandboxOf(argv: string[]): { rest: string[]; sandbox: string | undefined } {
  const rest: string[] = [];
  let sandbox: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const next = argv[i + 1] ?? '';
    if (argv[i] === '--settings') sandbox = JSON.parse(next).sandbox?.enabled ? 'claude sandbox' : undefined;
    else if (argv[i] === '-c' && /^(default_permissions|permissions\.|features\.network_proxy)/.test(next)) {
      const base = /^permissions\.svc\.extends="(.*)"$/.exec(next)?.[1];
      if (base) sandbox = `codex ${base}`;
    } else {
      rest.push(argv[i]!);
      continue;
    }
    i++;
  }
  return { rest, sandbox };
}

describe('conversation permissions', () => {
  it('read out of the box: the agent is refused writes, claude in its default mode and codex in its read-only sandbox', async () => {
    const claude = await create();
    expect(claude.permissions).toBeNull();
    expect(sandboxOf(await tryWrite(claude, 'plain-claude'))).toEqual({
      rest: ['-p', '--output-format', 'stream-json', '--verbose', '--permission-mode', 'default'],
      sandbox: 'claude sandbox',
    });
    const codex = await create({ assistant: 'codex' });
    expect(sandboxOf(await tryWrite(codex, 'plain-codex'))).toEqual({ rest: ['exec', '--json', '--skip-git-repo-check', '-'], sandbox: 'codex :read-only' });
    expect([written('plain-claude'), written('plain-codex')]).toEqual([false, false]);
  });

  it("a conversation's own permissions win, are stored with it and shown", async () => {
    const editing = await create({ permissions: 'edit' });
    expect(editing.permissions).toBe('edit');
    expect((await api(server, 'GET', `/api/conversations/${editing.id}`)).body.permissions).toBe('edit');
    expect(sandboxOf(await tryWrite(editing, 'own-edit')).rest.slice(4)).toEqual(['--permission-mode', 'acceptEdits', '--allowedTools', 'Bash']);
    expect(written('own-edit')).toBe(true);
    const codex = await create({ assistant: 'codex', permissions: 'edit' });
    expect(sandboxOf(await tryWrite(codex, 'own-codex')).sandbox).toBe('codex :workspace');
    expect(written('own-codex')).toBe(true);
  });

  it("the assistant configuration's permissions apply to conversations that set none", async () => {
    const conversation = await create();
    expect((await api(server, 'PATCH', '/api/config/assistants', { claude: { permissions: 'edit' } })).status).toBe(200);
    expect((await api(server, 'GET', '/api/config')).body.assistants.claude.permissions).toBe('edit');
    expect((await tryWrite(conversation, 'configured')).slice(4, 6)).toEqual(['--permission-mode', 'acceptEdits']);
    expect(written('configured')).toBe(true);
    // ... and a conversation that says read still reads.
    const reading = await create({ permissions: 'read' });
    expect(sandboxOf(await tryWrite(reading, 'still-read')).rest.slice(4)).toEqual(['--permission-mode', 'default']);
    expect(written('still-read')).toBe(false);
  });

  it('refuses permissions other than read, edit or full with 400', async () => {
    for (const permissions of ['write', '', 'Read', 3]) {
      const { status, body } = await api(server, 'POST', '/api/conversations', { permissions });
      expect(status).toBe(400);
      expect(body.error).toBe('invalid_request');
    }
  });
});
