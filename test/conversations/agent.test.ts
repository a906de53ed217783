// The orchestrator with the fake agents over a real server: replies streamed as deltas, stored
// with their metadata; claude session resume (also after a restart); failures and first-event
// timeouts as messages plus agent_error; a message left unanswered by a stopped server; codex.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { api, cleanupAll, readJsonLines, readLog, setProcessEnv, startServer, tempDir, waitFor, type Json } from '../helpers/runs.js';
import { connect, createConversation, FAKE_CODEX, send, waitForReply } from '../helpers/conversations.js';

let server: TestServer;
let logs: string;

beforeAll(async () => {
  logs = await tempDir('svc-conv-logs-');
  setProcessEnv({ FAKE_CLAUDE_LOG: join(logs, 'claude.jsonl'), FAKE_CODEX_LOG: join(logs, 'codex.jsonl') });
  server = await startServer({ env: { SVC_CODEX_BIN: FAKE_CODEX } });
});
afterAll(cleanupAll);

const claudeCalls = (): Json[] => readJsonLines(join(logs, 'claude.jsonl'));
const callFor = (text: string) => claudeCalls().find((call) => String(call.stdin).includes(text));

describe('a plain message', () => {
  it('streams the reply as assistant_delta events, stores it with its metadata, and announces it', async () => {
    const conversation = await createConversation(server);
    const stream = await connect(server, `/api/stream/${conversation.platform_conversation_id}`);
    const messageId = await send(server, conversation.id, 'tell me [fake:slow=30] [fake:reply=one two three four five six] [fake:cost=0.25]');
    await stream.until((events) => events.some((e) => e.type === 'assistant_done'));
    const types = stream.events.map((e) => e.type);
    expect(types[0]).toBe('message');
    expect(types.filter((t) => t === 'assistant_delta').length).toBeGreaterThanOrEqual(2);
    expect(types.slice(-2)).toEqual(['message', 'assistant_done']);
    const deltas = stream.events.filter((e) => e.type === 'assistant_delta');
    expect(deltas.map((e) => e.text).join('')).toBe('one two three four five six');
    expect(deltas.every((e) => e.messageId === messageId && e.conversationId === conversation.id)).toBe(true);
    const done = stream.events.at(-1)!;
    const stored = stream.events.at(-2)!.message;
    expect(done).toMatchObject({ messageId: stored.id, replyTo: messageId, costUsd: 0.25 });
    expect(stored).toMatchObject({ role: 'assistant', content: 'one two three four five six', metadata: { costUsd: 0.25, replyTo: messageId } });
    expect(stored.metadata.model).toEqual(expect.any(String));
    expect(stored.metadata.tokens).toEqual({ input: expect.any(Number), output: expect.any(Number) });
    // SSE ids are stream positions that only grow.
    const positions = stream.ids.map(Number);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    // Last-Event-ID replays what came after.
    const replay = await connect(server, `/api/stream/${conversation.id}`, { lastEventId: stream.ids[0] });
    await replay.until((events) => events.some((e) => e.type === 'assistant_done'));
    expect(replay.events.map((e) => e.type)).toEqual(types.slice(1));
  });

  it('resumes the agent session from the second message on, and after a restart', async () => {
    const home = await tempDir('svc-conv-home-');
    let own = await startServer({ home });
    const conversation = await createConversation(own);
    await waitForReply(own, conversation.id, await send(own, conversation.id, 'first resume-probe-1'));
    await waitForReply(own, conversation.id, await send(own, conversation.id, 'second resume-probe-2'));
    const first = callFor('resume-probe-1')!;
    const second = callFor('resume-probe-2')!;
    expect(first.argv).not.toContain('--resume');
    const session = second.argv[second.argv.indexOf('--resume') + 1];
    expect(session).toEqual(expect.any(String));
    await own.stop({ keepHome: true });

    own = await startServer({ home });
    await waitForReply(own, conversation.id, await send(own, conversation.id, 'third resume-probe-3'));
    const third = callFor('resume-probe-3')!;
    expect(third.argv[third.argv.indexOf('--resume') + 1]).toBe(session);
  });

  it('turns an agent failure into a message and agent_error, and the conversation keeps working', async () => {
    const conversation = await createConversation(server);
    const stream = await connect(server, `/api/stream/${conversation.id}`);
    const failed = await send(server, conversation.id, 'break [fake:fail]');
    const reply = await waitForReply(server, conversation.id, failed);
    expect(reply.role).toBe('system');
    expect(reply.metadata).toMatchObject({ code: 'agent_failed', error: expect.stringContaining('fake failure') });
    await stream.until((events) => events.some((e) => e.type === 'agent_error'));
    expect(stream.events.find((e) => e.type === 'agent_error')).toMatchObject({ messageId: reply.id, replyTo: failed, code: 'agent_failed' });
    const next = await waitForReply(server, conversation.id, await send(server, conversation.id, 'still there?'));
    expect(next).toMatchObject({ role: 'assistant', content: 'fake reply: still there?' });
  });

  it('answers a hanging agent with agent_first_event_timeout', async () => {
    // Long enough for the fake agent of the next message to start and speak on a loaded machine.
    const own = await startServer({ env: { SVC_AGENT_FIRST_EVENT_TIMEOUT_MS: '1500' } });
    const conversation = await createConversation(own);
    const reply = await waitForReply(own, conversation.id, await send(own, conversation.id, 'wait [fake:hang]'));
    expect(reply.metadata.code).toBe('agent_first_event_timeout');
    expect((await waitForReply(own, conversation.id, await send(own, conversation.id, 'again'))).content).toBe('fake reply: again');
  });

  it('answers a message left unanswered by a stopped server with an error message on restart', async () => {
    const home = await tempDir('svc-conv-home-');
    let own = await startServer({ home });
    const conversation = await createConversation(own);
    const stuck = await send(own, conversation.id, 'never answered [fake:hang]');
    // Queued behind it, sent at once: none may be lost from the pending list.
    const queued = await Promise.all(Array.from({ length: 10 }, (_, i) => send(own, conversation.id, `queued ${i}`)));
    await waitFor(() => callFor('never answered'));
    await own.stop({ keepHome: true });
    own = await startServer({ home });
    for (const messageId of [stuck, ...queued]) {
      const reply = await waitForReply(own, conversation.id, messageId);
      expect(reply).toMatchObject({ role: 'system', metadata: { code: 'interrupted', replyTo: messageId } });
    }
    expect(claudeCalls().filter((call) => String(call.stdin).startsWith('queued')).length).toBe(0);
    expect((await waitForReply(own, conversation.id, await send(own, conversation.id, 'after restart'))).content).toBe('fake reply: after restart');
  });
});

describe('codex', () => {
  it('answers through codex exec --json and resumes its thread', async () => {
    const conversation = await createConversation(server, { assistant: 'codex' });
    expect(conversation.assistant).toBe('codex');
    const first = await waitForReply(server, conversation.id, await send(server, conversation.id, 'codex one'));
    expect(first).toMatchObject({ role: 'assistant', content: 'fake codex reply: codex one', metadata: { costUsd: null, tokens: { input: 12, output: 5 } } });
    await waitForReply(server, conversation.id, await send(server, conversation.id, 'codex two'));
    const calls = readJsonLines(join(logs, 'codex.jsonl'));
    const one = calls.find((c) => c.stdin === 'codex one')!;
    const two = calls.find((c) => c.stdin === 'codex two')!;
    // A conversation reads unless told otherwise: codex's permission profile extending :read-only,
    // with the secrets denied (a reply's agent is sandboxed as a node's: docs/decisions.md, "Agents in a sandbox").
    const profile = [
      '-c',
      'default_permissions="svc"',
      '-c',
      'permissions.svc.extends=":read-only"',
      '-c',
      expect.stringMatching(/^permissions\.svc\.filesystem=\{.*\.ssh"="none"/),
      '-c',
      'permissions.svc.network.enabled=true',
      '-c',
      'permissions.svc.network.domains={}',
      '-c',
      'features.network_proxy=true',
    ];
    expect(one.argv).toEqual(['exec', '--json', '--skip-git-repo-check', ...profile, '-']);
    expect(two.argv.slice(0, profile.length + 4)).toEqual(['exec', '--json', '--skip-git-repo-check', ...profile, 'resume']);
    expect(two.argv.at(-1)).toBe('-');
  });

  it("counts a resumed thread's own tokens, and survives the retry notice codex prints before succeeding", async () => {
    const conversation = await createConversation(server, { assistant: 'codex' });
    await waitForReply(server, conversation.id, await send(server, conversation.id, 'codex turn one'));
    // The real codex reports a resumed thread's running total (24/10 here); the turn used 12/5.
    const second = await waitForReply(server, conversation.id, await send(server, conversation.id, 'codex turn two [fake:reconnect]'));
    expect(second).toMatchObject({
      role: 'assistant',
      content: 'fake codex reply: codex turn two [fake:reconnect]',
      metadata: { tokens: { input: 12, output: 5 } },
    });
  });
});

describe('claude sessions', () => {
  it('a session the agent no longer knows is dropped and the message answered in a new one', async () => {
    const conversation = await createConversation(server);
    await waitForReply(server, conversation.id, await send(server, conversation.id, 'remember me [fake:reply=first]'));
    setProcessEnv({ FAKE_CLAUDE_FORGET_SESSIONS: '1' });
    try {
      const reply = await waitForReply(server, conversation.id, await send(server, conversation.id, 'still there? [fake:reply=second]'));
      expect(reply).toMatchObject({ role: 'assistant', content: 'second' });
      expect(readLog(server.home).filter((e) => e.event === 'conversation.session_lost' && e.conversationId === conversation.id)).toHaveLength(1);
      // The new session sticks: the next message resumes it (and is forgotten too, so it starts over again).
      const third = await waitForReply(server, conversation.id, await send(server, conversation.id, 'and now [fake:reply=third]'));
      expect(third.content).toBe('third');
    } finally {
      setProcessEnv({ FAKE_CLAUDE_FORGET_SESSIONS: '' });
    }
  });
});

describe('the agent environment', () => {
  it("withholds the server's variables nobody allowed, and gives those SVC_AGENT_ENV_ALLOW lists", async () => {
    setProcessEnv({ SVC_TEST_CANARY: 'secret', SVC_TEST_SHARED: 'shared' });
    const own = await startServer({ env: { SVC_AGENT_ENV_ALLOW: 'FAKE_CLAUDE_*,SVC_TEST_SHARED' } });
    const conversation = await createConversation(own);
    await waitForReply(own, conversation.id, await send(own, conversation.id, 'canary probe'));
    const keys = callFor('canary probe')!.envKeys as string[];
    expect(keys).not.toContain('SVC_TEST_CANARY');
    expect(keys).toContain('SVC_TEST_SHARED');
    expect(keys).toContain('PATH');
  });
});

describe('model endpoints', () => {
  it('reach the agent environment and never an API answer', async () => {
    const endpointLog = join(logs, 'endpoint.jsonl');
    const key = 'sk-test-never-shown-4242';
    setProcessEnv({ FAKE_CLAUDE_ENDPOINT_LOG: endpointLog, SVC_TEST_MODEL_KEY: key });
    const own = await startServer({ env: { SVC_CODEX_BIN: FAKE_CODEX } });
    const patched = await api(own, 'PATCH', '/api/config/assistants', { claude: { baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'SVC_TEST_MODEL_KEY' } });
    expect(patched.status).toBe(200);
    expect(patched.body.assistants.claude).toEqual({ model: null, baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'SVC_TEST_MODEL_KEY', permissions: 'read' });
    const bad = await api(own, 'PATCH', '/api/config/assistants', { claude: { baseUrl: 'ftp://x' } });
    expect(bad.status).toBe(400);
    expect((await api(own, 'PATCH', '/api/config/assistants', { codex: { apiKeyEnv: 'not a name' } })).status).toBe(400);

    const conversation = await createConversation(own);
    await waitForReply(own, conversation.id, await send(own, conversation.id, 'endpoint probe'));
    expect(readJsonLines(endpointLog).at(-1)).toEqual({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: key });
    // codex gets the endpoint as a model provider on its command line.
    await api(own, 'PATCH', '/api/config/assistants', { codex: { baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'SVC_TEST_MODEL_KEY' } });
    const codexConversation = await createConversation(own, { assistant: 'codex' });
    await waitForReply(own, codexConversation.id, await send(own, codexConversation.id, 'codex endpoint probe'));
    const codexCall = readJsonLines(join(logs, 'codex.jsonl')).find((c) => c.stdin === 'codex endpoint probe')!;
    expect(codexCall.argv).toEqual(
      expect.arrayContaining([
        'model_providers.svc.base_url="http://127.0.0.1:9/v1"',
        'model_providers.svc.env_key="SVC_TEST_MODEL_KEY"',
        'model_provider="svc"',
      ]),
    );
    expect(JSON.stringify(codexCall.argv)).not.toContain(key);
    // The key's variable is withheld from no agent that an endpoint names it for (docs/contract.md, "Model endpoints").
    expect(codexCall.envKeys).toContain('SVC_TEST_MODEL_KEY');
    for (const path of ['/api/config', `/api/conversations/${conversation.id}/messages`, `/api/conversations/${conversation.id}`, '/api/openapi.json']) {
      expect(JSON.stringify((await api(own, 'GET', path)).body), path).not.toContain(key);
    }
  });
});
