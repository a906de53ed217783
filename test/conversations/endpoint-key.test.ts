// A configured assistant endpoint gets the key `apiKeyEnv` names, or none: the server's own Anthropic
// key never travels to it.
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { api, cleanupAll, readJsonLines, setProcessEnv, startServer, tempDir } from '../helpers/runs.js';
import { createConversation, send, waitForReply } from '../helpers/conversations.js';

afterEach(cleanupAll);

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
