// Codex reports tokens, not cost (docs/decisions.md, "Spend cap"): with a price per million
// tokens configured for the assistant, a codex node's cost is its tokens at that price — known, not
// partial, and counted by the cap; without one it stays unknown (`costPartial`), never 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costOfTokens } from '../../src/config/token-price.js';
import { createConversation, FAKE_CODEX, send, waitForReply } from '../helpers/conversations.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import type { TestServer } from '../helpers/server.js';
import { api, cleanupAll, type Json, projectWithWorkflows, startRun, startServer, waitForRun } from '../helpers/runs.js';

let server: TestServer;
let project: string;

beforeAll(async () => {
  project = await projectWithWorkflows([
    // Each fake codex turn uses 12 input tokens (3 of them cached here) and 5 output tokens.
    { name: 'priced', max_cost_usd: 1, nodes: [{ id: 'one', prompt: 'hello [fake:cached-tokens=3]', assistant: 'codex' }] },
    {
      name: 'priced-over',
      max_cost_usd: 0.01,
      nodes: [
        { id: 'one', prompt: 'first', assistant: 'codex' },
        { id: 'two', prompt: 'second', assistant: 'codex', depends_on: ['one'] },
      ],
    },
  ]);
  server = await startServer({ socket: true, env: { SVC_CODEX_BIN: FAKE_CODEX } });
});
afterAll(cleanupAll);

const setPrice = (price: Json | null) => api(server, 'PATCH', '/api/config/assistants', { codex: { pricePerMillionTokens: price } });
const costUnknownWarnings = (run: Json) => run.events.filter((e: Json) => e.type === 'budget_warning' && e.reason === 'cost_unknown');

describe('a price per million tokens for codex', () => {
  it('prices a codex node from its tokens: a known cost, not partial, counted by the cap', async () => {
    const cli = (args: string[]) => runSvcInProcess(['config', ...args], { SVC_URL: server.url });
    const set = await cli(['set-price', 'codex', '1000', '2000', '--cached-input', '100']);
    expect(set).toMatchObject({ code: 0, stdout: 'codex tokens now cost $1000 in, $2000 out, cached input $100 per million.\n' });
    expect((await api(server, 'GET', '/api/config')).body.assistants.codex.pricePerMillionTokens).toEqual({ input: 1000, cachedInput: 100, output: 2000 });
    expect((await cli(['show'])).stdout).toMatch(/codex price\s+\$1000 in, \$2000 out, \$100 cached in per million tokens/);
    // A price that is not a number of USD, or half a price, is a usage error.
    expect((await cli(['set-price', 'codex', '-1', '2'])).code).toBe(2);
    expect((await cli(['set-price', 'codex', '1'])).code).toBe(2);

    const run = await waitForRun(server, await startRun(server, 'priced', { message: 'go', cwd: project }));
    // (9 × 1000 + 3 × 100 + 5 × 2000) / 1e6 USD.
    const cost = 0.0193;
    expect(run.status).toBe('completed');
    expect(run.nodes.one).toMatchObject({ costUsd: cost, tokens: { input: 12, cachedInput: 3, output: 5 } });
    expect(run).toMatchObject({ costUsd: cost, spentUsd: cost });
    expect(run.costPartial).toBeFalsy();
    expect(costUnknownWarnings(run)).toEqual([]);
  });

  it('prices a codex reply in a conversation by the same rule', async () => {
    await setPrice({ input: 1000, output: 2000 });
    const conversation = await createConversation(server, { assistant: 'codex' });
    const reply = await waitForReply(server, conversation.id, await send(server, conversation.id, 'price me'));
    expect(reply).toMatchObject({ role: 'assistant', metadata: { costUsd: 0.022, tokens: { input: 12, output: 5 } } });
  });

  it('stops a run whose priced codex spend reaches its cap', async () => {
    await setPrice({ input: 1000, output: 2000 });
    const run = await waitForRun(server, await startRun(server, 'priced-over', { message: 'go', cwd: project }));
    expect(run).toMatchObject({ status: 'failed', errorCode: 'budget_exceeded', spentUsd: 0.022 });
    expect(run.nodes.one).toMatchObject({ status: 'completed', costUsd: 0.022 });
    expect(run.nodes.two).toMatchObject({ status: 'cancelled', error: 'budget_exceeded' });
    expect(run.events.find((e: Json) => e.type === 'budget_exceeded')).toMatchObject({ spentUsd: 0.022, capUsd: 0.01, nodeId: 'one' });
  });

  it('refuses a price that is not a number of USD, and null removes it: codex cost is unknown again, never 0', async () => {
    const refused = await setPrice({ input: -1, output: 2 });
    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect((await setPrice({ input: 1 })).status).toBe(400);
    expect((await setPrice(null)).status).toBe(200);
    const run = await waitForRun(server, await startRun(server, 'priced', { message: 'go', cwd: project }));
    expect(run.nodes.one.costUsd).toBeNull();
    expect(run).toMatchObject({ costPartial: true, spentUsd: 0 });
    expect(costUnknownWarnings(run)).toHaveLength(1);
  });
});

it('costOfTokens: cached input at its own price, else at the input price', () => {
  const tokens = { input: 1000, cachedInput: 400, output: 100 };
  expect(costOfTokens(tokens, { input: 2, cachedInput: 0.5, output: 8 })).toBe(0.0022);
  expect(costOfTokens(tokens, { input: 2, output: 8 })).toBe(0.0028);
  expect(costOfTokens({ input: 10, output: 0 }, { input: 0, output: 0 })).toBe(0);
});
