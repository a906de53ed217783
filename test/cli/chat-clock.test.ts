// `svc chat` / `conversation send` wait for the answer on the stream, replaying from the client's
// clock. A server whose clock is behind stores the answer at an earlier position than that: the
// client then finds it among the stored messages instead of waiting forever.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { sendAndAwaitReply } from '../../src/cli/commands/conversation/_reply.js';
import { createClient, httpTransport } from '../../src/client/index.js';
import { FAKE_CLAUDE } from '../helpers/runs.js';
import { killAllServes, spawnServe } from '../helpers/serve-process.js';

let dir: string;
let url: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-chat-clock-'));
  url = (await spawnServe({ home: join(dir, 'home'), env: { SVC_CLAUDE_BIN: FAKE_CLAUDE } })).url;
});
afterAll(async () => {
  await killAllServes();
  await rm(dir, { recursive: true, force: true });
});

it('gets the answer even when this machine’s clock runs a minute ahead of the server’s', async () => {
  const client = createClient(httpTransport(url));
  const { id } = await client.conversations.create({});
  const realNow = Date.now.bind(Date);
  const ahead = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 60_000);
  try {
    const outcome = await Promise.race([
      sendAndAwaitReply(client, id, '/help', () => {}),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer within 15 s')), 15_000)),
    ]);
    expect(outcome.failed).toBeNull();
    expect(outcome.content).toContain('/run <workflow> <text>');
  } finally {
    ahead.mockRestore();
    await client.close();
  }
});
