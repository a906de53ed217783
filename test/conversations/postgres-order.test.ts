// The conversations' ordering test on the PostgreSQL store: 20 sends at once to one conversation
// are stored in the order they arrive and answered once each, in that order. It failed about one
// run in three on PostgreSQL when places were taken in the order the conversation lookups of the
// sends happened to finish on the pool's connections, not the order the sends arrived.
import { afterAll, expect, it } from 'vitest';
import { cleanupAll, startServer } from '../helpers/runs.js';
import { usePostgres } from '../support/postgres.js';
import { createConversation, messages, send, waitForReply } from '../helpers/conversations.js';

const postgres = usePostgres();
afterAll(cleanupAll);

it('keeps 20 concurrent sends in order, each answered once, in order (PostgreSQL, three conversations)', async () => {
  const server = await startServer({ env: { SVC_DATABASE_URL: await postgres.createDatabase() } });
  // Three rounds: one round alone missed the fault about two times in three.
  for (let round = 0; round < 3; round++) {
    const conversation = await createConversation(server);
    const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => send(server, conversation.id, `message ${i}`)));
    expect(new Set(ids).size).toBe(20);
    // Concurrent requests may reach the server in any order: wait for every reply, not the last sent's.
    for (const id of ids) await waitForReply(server, conversation.id, id, 60_000);
    const all = await messages(server, conversation.id, '?limit=200');
    expect(all, `round ${round}`).toHaveLength(40);
    const users = all.filter((m) => m.role === 'user');
    expect(users.map((m) => m.id).sort()).toEqual([...ids].sort());
    expect(all.filter((m) => m.role === 'assistant').map((m) => m.metadata.replyTo)).toEqual(users.map((m) => m.id));
    for (const reply of all.filter((m) => m.role === 'assistant')) {
      expect(reply.content).toBe(`fake reply: ${users.find((u) => u.id === reply.metadata.replyTo)!.content}`);
    }
  }
}, 180_000);
