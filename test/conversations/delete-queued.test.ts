// Deleting a conversation: a message still queued when its conversation is deleted is not handled.
import { afterEach, expect, it } from 'vitest';
import { api, cleanupAll, startServer, waitFor } from '../helpers/runs.js';
import { createConversation, messages, send } from '../helpers/conversations.js';

afterEach(cleanupAll);

it('a message still queued when its conversation is deleted is not handled', async () => {
  const server = await startServer();
  const conversation = await createConversation(server);
  await send(server, conversation.id, 'slow one [fake:slow=300]');
  const queued = await send(server, conversation.id, 'never sent to the agent [fake:reply=should-not-appear]');
  expect((await api(server, 'DELETE', `/api/conversations/${conversation.id}`)).status).toBe(200);
  const answer = await waitFor(async () => {
    const page = await messages(server, conversation.id, '?limit=50');
    return page.find((m) => m.metadata?.replyTo === queued);
  });
  expect(answer).toMatchObject({ role: 'system', metadata: { code: 'conversation_deleted' } });
  expect(JSON.stringify(await messages(server, conversation.id, '?limit=50'))).not.toContain('should-not-appear"');
});
