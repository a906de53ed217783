// Slash commands over a real server: /run links a run to the conversation (its events on the
// conversation's stream, its outcome posted as a message, the conversation's workspace used),
// /workflows, /runs, /status, /help, and unknown commands answered with help, never by an agent.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import {
  api,
  cleanupAll,
  getRun,
  projectWithWorkflows,
  readJsonLines,
  setProcessEnv,
  startServer,
  tempDir,
  waitFor,
  waitForRun,
  type Json,
} from '../helpers/runs.js';
import { connect, createConversation, messages, send, waitForReply } from '../helpers/conversations.js';

let server: TestServer;
let project: string;
let agentLog: string;

beforeAll(async () => {
  agentLog = join(await tempDir('svc-conv-logs-'), 'claude.jsonl');
  setProcessEnv({ FAKE_CLAUDE_LOG: agentLog });
  project = await projectWithWorkflows([
    { name: 'greet', description: 'says hello', nodes: [{ id: 'hello', bash: 'echo "hello $ARGUMENTS"' }] },
    { name: 'broken', nodes: [{ id: 'boom', bash: 'echo no >&2; exit 3' }] },
  ]);
  // Project workflows are found under the server's cwd (here: a registered workspace).
  server = await startServer();
});
afterAll(cleanupAll);

describe('/run', () => {
  it('starts the workflow linked to the conversation, on its workspace; its events and outcome reach the conversation', async () => {
    const { body: workspace } = await api(server, 'POST', '/api/workspaces', { path: project });
    const conversation = await createConversation(server, { workspace_id: workspace.id });
    const stream = await connect(server, `/api/stream/${conversation.platform_conversation_id}`);
    const asked = await send(server, conversation.id, '/run greet the world');
    const answer = await waitForReply(server, conversation.id, asked);
    expect(answer.role).toBe('system');
    const runId = answer.metadata.runId as string;
    expect(runId).toEqual(expect.any(String));
    const run = await waitForRun(server, runId);
    expect(run).toMatchObject({ status: 'completed', conversationId: conversation.id, workspaceId: workspace.id, message: 'the world' });
    expect(run.nodes.hello.output).toContain('hello the world');
    await stream.until((events) => events.some((e) => e.type === 'message' && e.message.metadata.runId === runId && e.message.content.includes('completed')));
    expect(stream.events.filter((e) => e.runId === runId).map((e) => e.type)).toEqual(expect.arrayContaining(['run_created', 'run_started', 'run_completed']));
    const outcome = (await messages(server, conversation.id)).at(-1)!;
    expect(outcome).toMatchObject({ role: 'system', metadata: { runId } });

    const runs = await waitForReply(server, conversation.id, await send(server, conversation.id, '/runs'));
    expect(runs.content).toContain(runId);
  });

  it('posts a failed outcome with its error, and answers an unknown workflow with an error message', async () => {
    const { body: workspaces } = await api(server, 'GET', '/api/workspaces');
    const conversation = await createConversation(server, { workspace_id: workspaces.workspaces[0].id });
    const answer = await waitForReply(server, conversation.id, await send(server, conversation.id, '/run broken now'));
    await waitForRun(server, answer.metadata.runId);
    await waitFor(async () => (await messages(server, conversation.id)).find((m) => m.metadata.runId === answer.metadata.runId && m.metadata.error));
    const missing = await waitForReply(server, conversation.id, await send(server, conversation.id, '/run no-such-workflow x'));
    expect(missing.metadata.code).toBe('workflow_not_found');
  });
});

describe('a run started with a conversationId', () => {
  it("takes the conversation's workspace and reports to it", async () => {
    const { body: workspaces } = await api(server, 'GET', '/api/workspaces');
    const conversation = await createConversation(server, { workspace_id: workspaces.workspaces[0].id });
    const { body: started } = await api(server, 'POST', '/api/workflows/greet/run', {
      message: 'by body',
      conversationId: conversation.platform_conversation_id,
    });
    const run = await waitForRun(server, started.runId);
    expect(run).toMatchObject({ status: 'completed', workspaceId: workspaces.workspaces[0].id });
    await waitFor(async () => (await messages(server, conversation.id)).find((m) => m.metadata.runId === run.id));
    expect((await waitForReply(server, conversation.id, await send(server, conversation.id, '/runs'))).content).toContain(run.id);
  });
});

describe('other commands', () => {
  it('answers /workflows, /status, /help and unknown commands without calling an agent', async () => {
    const conversation = await createConversation(server);
    const before = readJsonLines(agentLog).length;
    const workflows = await waitForReply(server, conversation.id, await send(server, conversation.id, '/workflows'));
    expect(workflows.content).toContain('Workflows:');
    const status = await waitForReply(server, conversation.id, await send(server, conversation.id, '/status'));
    expect(status.content).toContain(conversation.id);
    expect(status.content).toContain('Assistant: claude');
    expect(status.content).toContain('Permissions: read');
    const help = await waitForReply(server, conversation.id, await send(server, conversation.id, '/help'));
    expect(help.content).toContain('/run <workflow> <text>');
    const unknown = await waitForReply(server, conversation.id, await send(server, conversation.id, '/deploy everything'));
    expect(unknown.content).toContain("Unknown command '/deploy'");
    expect(unknown.content).toContain('/run <workflow> <text>');
    expect(readJsonLines(agentLog).length).toBe(before);
  });
});

describe('worker conversations', () => {
  it('are listed and readable, and carry their run on their stream', async () => {
    const { body: workspaces } = await api(server, 'GET', '/api/workspaces');
    const { body: started } = await api(server, 'POST', '/api/workflows/greet/run', { message: 'worker', workspaceId: workspaces.workspaces[0].id });
    const run: Json = await waitForRun(server, started.runId);
    const worker = await api(server, 'GET', `/api/conversations/${run.platformId}`);
    expect(worker.status).toBe(200);
    expect(worker.body).toMatchObject({ platform_conversation_id: run.platformId, run_id: run.id });
    const listed = await api(server, 'GET', '/api/conversations?limit=200');
    expect(listed.body.conversations.map((c: Json) => c.id)).toContain(worker.body.id);
    expect((await api(server, 'GET', `/api/conversations/${worker.body.id}/messages`)).body).toEqual({ messages: [], next_before: null });
    const stream = await connect(server, `/api/stream/${worker.body.id}?lastEventId=0`);
    await stream.until((events) => events.some((e) => e.type === 'run_completed'));
    expect(stream.events.every((e) => e.runId === run.id)).toBe(true);
    expect((await getRun(server, run.id)).status).toBe('completed');
  });
});
