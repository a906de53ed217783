// What a review of conversations and benchmarks found, each pinned: the server's own Anthropic key
// never travels to a configured endpoint; a message queued before its conversation was deleted is
// not handled; out-of-range time bounds are 400s, not 500s.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { api, cleanupAll, readJsonLines, setProcessEnv, startServer, tempDir, waitFor } from '../helpers/runs.js';
import { createConversation, messages, send, waitForReply } from '../helpers/conversations.js';

afterEach(cleanupAll);

describe('review fixes', () => {
  it("a configured endpoint gets the key apiKeyEnv names, or none — never the server's own", async () => {
    const log = join(await tempDir('svc-endpoint-'), 'endpoint.jsonl');
    setProcessEnv({ FAKE_CLAUDE_ENDPOINT_LOG: log, ANTHROPIC_API_KEY: 'sk-ant-server-own-key', ANTHROPIC_AUTH_TOKEN: 'server-own-token' });
    const server = await startServer();
    await api(server, 'PATCH', '/api/config/assistants', { claude: { baseUrl: 'http://127.0.0.1:9', apiKeyEnv: 'NOT_SET_ANYWHERE_42' } });
    const conversation = await createConversation(server);
    await waitForReply(server, conversation.id, await send(server, conversation.id, 'probe [fake:reply=ok]'));
    const seen = readJsonLines(log).at(-1)!;
    expect(seen.baseUrl).toBe('http://127.0.0.1:9');
    expect(JSON.stringify(seen)).not.toContain('server-own');
  });

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

  it('answers 400 for time bounds beyond what a date can hold', async () => {
    const server = await startServer();
    for (const query of ['since=99999999999w', 'since=100000000000h', 'until=9999999999999999999999d', 'since=2026-02-31']) {
      const answer = await api(server, 'GET', `/api/dashboard/runs?${query}`);
      expect(answer.status, query).toBe(400);
    }
    expect((await api(server, 'GET', '/api/runs/benchmark?workflow=x&since=99999999999w')).body.error).toBe('invalid_since');
  });
});
