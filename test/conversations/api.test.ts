// Conversations over a real server: CRUD with soft delete, validation, messages paged by cursor,
// send → 202 with the user message stored first, and ordering under concurrent sends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { api, cleanupAll, startServer, type Json } from '../helpers/runs.js';
import { createConversation, messages, send, waitForReply } from '../helpers/conversations.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(cleanupAll);

describe('conversation records', () => {
  it('creates, reads by either id, renames, lists and soft-deletes', async () => {
    const created = await createConversation(server);
    expect(created).toMatchObject({ workspace_id: null, title: null, deleted_at: null, run_id: null });
    expect(created.platform_conversation_id).toEqual(expect.any(String));
    expect((await api(server, 'GET', `/api/conversations/${created.id}`)).body).toEqual(created);
    expect((await api(server, 'GET', `/api/conversations/${created.platform_conversation_id}`)).body).toEqual(created);

    const renamed = await api(server, 'PATCH', `/api/conversations/${created.platform_conversation_id}`, { title: 'Release plan' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.title).toBe('Release plan');

    const listed = await api(server, 'GET', '/api/conversations');
    expect(listed.body.conversations.map((c: Json) => c.id)).toContain(created.id);

    const deleted = await api(server, 'DELETE', `/api/conversations/${created.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.deleted_at).toEqual(expect.any(String));
    expect((await api(server, 'GET', '/api/conversations')).body.conversations.map((c: Json) => c.id)).not.toContain(created.id);
    expect((await api(server, 'GET', '/api/conversations?include_deleted=true')).body.conversations.map((c: Json) => c.id)).toContain(created.id);
    expect((await api(server, 'GET', `/api/conversations/${created.id}`)).body.deleted_at).toEqual(deleted.body.deleted_at);

    const refused = await api(server, 'POST', `/api/conversations/${created.id}/message`, { message: 'hello?' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('conversation_deleted');
  });

  it('answers 404 for unknown conversations and workspaces, 400 for bad input', async () => {
    expect((await api(server, 'GET', '/api/conversations/conv_nope')).body.error).toBe('conversation_not_found');
    expect((await api(server, 'POST', '/api/conversations/conv_nope/message', { message: 'x' })).status).toBe(404);
    const noWorkspace = await api(server, 'POST', '/api/conversations', { workspace_id: 'ws_nope' });
    expect(noWorkspace.status).toBe(404);
    expect(noWorkspace.body.error).toBe('workspace_not_found');

    const conversation = await createConversation(server);
    const path = `/api/conversations/${conversation.id}`;
    expect((await api(server, 'PATCH', path, { title: '' })).status).toBe(400);
    expect((await api(server, 'PATCH', path, { title: 'x'.repeat(201) })).status).toBe(400);
    expect((await api(server, 'PATCH', path, { title: 'x'.repeat(200) })).status).toBe(200);
    expect((await api(server, 'POST', `${path}/message`, { message: '' })).status).toBe(400);
    expect((await api(server, 'POST', `${path}/message`, { message: 'x'.repeat(100 * 1024 + 1) })).status).toBe(400);
    for (const query of ['?limit=0', '?limit=201', '?limit=abc', '?before=msg_zz_00', '?before=nonsense']) {
      expect((await api(server, 'GET', `${path}/messages${query}`)).status, query).toBe(400);
    }
  });

  it('filters the list by workspace', async () => {
    const { body: workspace } = await api(server, 'POST', '/api/workspaces', { path: server.home });
    const on = await createConversation(server, { workspace_id: workspace.id });
    await createConversation(server);
    const listed = await api(server, 'GET', `/api/conversations?workspace_id=${workspace.id}`);
    expect(listed.body.conversations.map((c: Json) => c.id)).toEqual([on.id]);
    expect(listed.body.total).toBe(1);
  });
});

describe('messages', () => {
  it('walks a 500-message conversation with `before` with no gaps and no repeats', async () => {
    const conversation = await createConversation(server);
    // Slash commands are answered without an agent: 250 sends make 500 messages quickly.
    for (let i = 0; i < 250; i++) await send(server, conversation.id, `/help ${i}`);
    let seen: Json[] = [];
    for (let attempt = 0; attempt < 100 && seen.length < 500; attempt++) {
      seen = [];
      let before: string | null | undefined;
      do {
        const { body } = await api(server, 'GET', `/api/conversations/${conversation.id}/messages?limit=37${before ? `&before=${before}` : ''}`);
        seen = [...body.messages, ...seen];
        before = body.next_before;
      } while (before);
      if (seen.length < 500) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(seen).toHaveLength(500);
    expect(new Set(seen.map((m) => m.id)).size).toBe(500);
    const users = seen.filter((m) => m.role === 'user').map((m) => m.content);
    expect(users).toEqual(Array.from({ length: 250 }, (_, i) => `/help ${i}`));
    // Answered in order, each once, each after the message it answers.
    const userIds = seen.filter((m) => m.role === 'user').map((m) => m.id);
    expect(seen.filter((m) => m.role === 'system').map((m) => m.metadata.replyTo)).toEqual(userIds);
    seen.forEach((m, index) => {
      if (m.role === 'system') expect(seen.findIndex((u) => u.id === m.metadata.replyTo)).toBeLessThan(index);
    });
    // The default page is the newest 50, oldest first.
    const newest = await messages(server, conversation.id);
    expect(newest.map((m) => m.id)).toEqual(seen.slice(450).map((m) => m.id));
  }, 60_000);

  it('keeps 20 concurrent sends in order, each answered once, in order', async () => {
    const conversation = await createConversation(server);
    const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => send(server, conversation.id, `message ${i}`)));
    expect(new Set(ids).size).toBe(20);
    // Concurrent requests may reach the server in any order: wait for every reply, not the last sent's.
    for (const id of ids) await waitForReply(server, conversation.id, id, 60_000);
    const all = await messages(server, conversation.id, '?limit=200');
    expect(all).toHaveLength(40);
    const users = all.filter((m) => m.role === 'user');
    // Stored in the order the sends were accepted; the ids given in the 202s match.
    expect(users.map((m) => m.id).sort()).toEqual([...ids].sort());
    expect(all.filter((m) => m.role === 'assistant').map((m) => m.metadata.replyTo)).toEqual(users.map((m) => m.id));
    for (const reply of all.filter((m) => m.role === 'assistant')) {
      expect(reply.content).toBe(`fake reply: ${users.find((u) => u.id === reply.metadata.replyTo)!.content}`);
    }
  }, 90_000);
});
