// Usage limits (docs/decisions.md, "Usage limits"): an agent that ends on its usage or rate
// limit fails its node `usage_limit` with the time the limit resets (`resumeAt`), as the agent said
// it, else SVC_USAGE_LIMIT_RETRY_MS later; the node is not retried, and the run carries the time.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/shared/settings.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { FAKE_CODEX } from '../helpers/conversations.js';
import type { TestServer } from '../helpers/server.js';
import {
  api,
  cleanupAll,
  type Json,
  projectWithWorkflows,
  readJsonLines,
  setProcessEnv,
  startRun,
  startServer,
  tempDir,
  waitFor,
  waitForRun,
} from '../helpers/runs.js';

const RETRY_MS = 600_000;
let server: TestServer;
let project: string;
let claudeLog: string;

const failedEvent = (run: Json, nodeId: string): Json | undefined => run.events.find((e: Json) => e.type === 'node_failed' && e.nodeId === nodeId);
const claudeCalls = (marker: string) => readJsonLines(claudeLog).filter((call) => String(call.stdin).includes(marker));

beforeAll(async () => {
  const dir = await tempDir('svc-usage-limit-');
  claudeLog = join(dir, 'claude.jsonl');
  project = await projectWithWorkflows([
    {
      name: 'limit-claude',
      nodes: [
        { id: 'before', prompt: 'first step done' },
        // The limit message and its reset come with the run's message; a retry would hit it again.
        { id: 'hit', prompt: 'second step $ARGUMENTS', depends_on: ['before'], retry: { max_attempts: 3 } },
      ],
    },
    { name: 'limit-codex', nodes: [{ id: 'chit', assistant: 'codex', prompt: 'codex step $ARGUMENTS' }] },
    { name: 'limit-event', nodes: [{ id: 'step', prompt: 'event step $ARGUMENTS' }] },
    {
      name: 'limit-429',
      nodes: [{ id: 'throttled', prompt: 'throttled [fake:usage-limit=API Error: 429 rate_limit_error: This request would exceed your rate limit]' }],
    },
  ]);
  setProcessEnv({ FAKE_CLAUDE_LOG: claudeLog });
  server = await startServer({ socket: true, env: { SVC_CODEX_BIN: FAKE_CODEX, SVC_USAGE_LIMIT_RETRY_MS: String(RETRY_MS) } });
});
afterAll(cleanupAll);

describe('a claude node that ends on its usage limit', () => {
  it('fails usage_limit with the reset time the notice gives, untried again; a resume clears it and runs only that node', async () => {
    // A limit that resets a few seconds from now: the fake hits it until then.
    const reset = Math.floor(Date.now() / 1000) + 4;
    const message = `[fake:usage-limit=Claude AI usage limit reached|${reset}] [fake:limit-until=${reset}]`;
    const runId = await startRun(server, 'limit-claude', { message, cwd: project });
    const run = await waitForRun(server, runId);
    const resumeAt = new Date(reset * 1000).toISOString();
    expect(run.status).toBe('failed');
    expect(run.nodes.before).toMatchObject({ status: 'completed', output: 'fake reply: first step done' });
    expect(run.nodes.hit).toMatchObject({ status: 'failed', attempts: 1, resumeAt });
    expect(run.nodes.hit.error).toContain('claude stopped at its usage limit');
    expect(failedEvent(run, 'hit')).toMatchObject({ code: 'usage_limit', resumeAt, attempts: 1 });
    expect(run).toMatchObject({ errorCode: 'usage_limit', resumeAt });
    expect(run.events.find((e: Json) => e.type === 'run_failed')).toMatchObject({ code: 'usage_limit', resumeAt });
    expect(claudeCalls('second step')).toHaveLength(1);
    const shown = await runSvcInProcess(['runs', 'show', runId], { SVC_URL: server.url });
    expect(shown.stdout).toContain(`limit:    usage limit resets at ${resumeAt}`);

    // Once the limit has reset, a resume clears the time and the code and runs only the failed node.
    await waitFor(() => Date.now() >= reset * 1000, 10_000);
    expect((await api(server, 'POST', `/api/workflows/runs/${runId}/resume`)).status).toBe(200);
    expect(await startRun(server, 'limit-claude', { message, cwd: project, conversationId: run.conversationId })).toBe(runId);
    const resumed = await waitForRun(server, runId, (r) => r.status === 'completed' || r.status === 'failed');
    expect(resumed).toMatchObject({ status: 'completed', errorCode: null, resumeAt: null });
    expect(resumed.nodes.hit.resumeAt).toBeUndefined();
    expect(claudeCalls('first step')).toHaveLength(1);
    expect(claudeCalls('second step')).toHaveLength(2);
  });

  it('an API 429 without a time: resumeAt is SVC_USAGE_LIMIT_RETRY_MS after the hit', async () => {
    const before = Date.now();
    const run = await waitForRun(server, await startRun(server, 'limit-429', { message: '', cwd: project }));
    const after = Date.now();
    expect(failedEvent(run, 'throttled')).toMatchObject({ code: 'usage_limit' });
    const at = Date.parse(run.nodes.throttled.resumeAt);
    expect(at).toBeGreaterThanOrEqual(before + RETRY_MS);
    expect(at).toBeLessThanOrEqual(after + RETRY_MS);
    expect(run.resumeAt).toBe(run.nodes.throttled.resumeAt);
  });
});

describe("claude's rate_limit_event (issue 29)", () => {
  // The event's time and the text's differ: which one the node records says which was read.
  const EVENT_RESET = 1_893_456_000; // 2030-01-01T00:00:00Z
  const eventReset = new Date(EVENT_RESET * 1000).toISOString();
  const stepOf = (message: string) => startRun(server, 'limit-event', { message, cwd: project });

  it("a rejected event: its resetsAt is the node's resumeAt, before the clock time in the text", async () => {
    const message = `[fake:rate-limit=rejected][fake:rate-limit-resets=${EVENT_RESET}][fake:usage-limit=5-hour limit reached ∙ resets 3pm]`;
    const run = await waitForRun(server, await stepOf(message));
    expect(run.nodes.step).toMatchObject({ status: 'failed', resumeAt: eventReset });
    expect(failedEvent(run, 'step')).toMatchObject({ code: 'usage_limit', resumeAt: eventReset });
    expect(run).toMatchObject({ errorCode: 'usage_limit', resumeAt: eventReset });
  });

  it('a rejected event makes the failure a usage limit even when the text names none', async () => {
    const message = `[fake:rate-limit=rejected][fake:rate-limit-resets=${EVENT_RESET}][fake:usage-limit=API Error: request refused]`;
    const run = await waitForRun(server, await stepOf(message));
    expect(failedEvent(run, 'step')).toMatchObject({ code: 'usage_limit', resumeAt: eventReset });
    expect(run.nodes.step.error).toContain('claude stopped at its usage limit');
  });

  it('a rejected event without resetsAt leaves the time to the text', async () => {
    const textReset = 1_895_000_000;
    const message = `[fake:rate-limit=rejected][fake:usage-limit=Claude AI usage limit reached|${textReset}]`;
    const run = await waitForRun(server, await stepOf(message));
    expect(run.nodes.step.resumeAt).toBe(new Date(textReset * 1000).toISOString());
  });

  it('an allowed event is no limit: the call answers, and its resetsAt is never a resume time', async () => {
    const ok = await waitForRun(server, await stepOf(`[fake:rate-limit=allowed_warning][fake:rate-limit-resets=${EVENT_RESET}]`));
    expect(ok.status).toBe('completed');
    const textReset = 1_895_000_000;
    const hit = await waitForRun(
      server,
      await stepOf(`[fake:rate-limit=allowed][fake:rate-limit-resets=${EVENT_RESET}][fake:usage-limit=Claude AI usage limit reached|${textReset}]`),
    );
    expect(hit.nodes.step).toMatchObject({ status: 'failed', resumeAt: new Date(textReset * 1000).toISOString() });
  });
});

describe('a codex node that ends on its usage limit', () => {
  it('fails usage_limit with the time of "try again in …"', async () => {
    const before = Date.now();
    const message = "[fake:usage-limit=You've hit your usage limit. Upgrade to Plus to continue using Codex, or try again in 2 hours 3 minutes.]";
    const run = await waitForRun(server, await startRun(server, 'limit-codex', { message, cwd: project }));
    const after = Date.now();
    expect(run.nodes.chit).toMatchObject({ status: 'failed' });
    expect(run.nodes.chit.error).toContain("codex stopped at its usage limit: You've hit your usage limit.");
    expect(failedEvent(run, 'chit')).toMatchObject({ code: 'usage_limit' });
    const at = Date.parse(run.nodes.chit.resumeAt);
    expect(at).toBeGreaterThanOrEqual(before + 123 * 60_000);
    expect(at).toBeLessThanOrEqual(after + 123 * 60_000);
  });
});

it('SVC_USAGE_LIMIT_RETRY_MS defaults to 30 minutes', () => {
  expect(loadSettings({}).usageLimitRetryMs).toBe(1_800_000);
  expect(loadSettings({ SVC_USAGE_LIMIT_RETRY_MS: '5000' }).usageLimitRetryMs).toBe(5000);
});
