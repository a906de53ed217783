// The acp agent driven directly (src/agents/acp.ts) with the fake ACP agent
// (test/fixtures/fake-acp.mjs): a call aborted while it is being set up — its directory made, its
// sandbox wrapped — ends cancelled rather than running its turn unheard.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createAcpAgent } from '../../src/agents/acp.js';
import { silentLogger } from '../../src/shared/logger.js';
import { cleanupAll, tempDir } from '../helpers/runs.js';

const FAKE_ACP = fileURLToPath(new URL('../fixtures/fake-acp.mjs', import.meta.url));

afterAll(cleanupAll);

describe('an acp call aborted while it is set up', () => {
  it('ends agent_cancelled, and the agent does not answer', async () => {
    const dir = await tempDir('svc-acp-agent-');
    const agent = createAcpAgent(join(dir, 'agents'));
    const controller = new AbortController();
    const said: string[] = [];
    const call = agent.run({
      acp: { name: 'fake', command: ['node', FAKE_ACP], env: { FAKE_ACP_SESSIONS: join(dir, 'sessions') }, preset: null, apiKeyEnv: null },
      prompt: 'say answered',
      cwd: dir,
      model: null,
      permissions: 'full',
      env: process.env,
      signal: controller.signal,
      firstEventTimeoutMs: 20_000,
      onText: (text) => said.push(text),
      logger: silentLogger,
    });
    // The call is past its first check and making its directory: the abort comes before it listens.
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'agent_cancelled' });
    expect(said).toEqual([]);
  });
});
