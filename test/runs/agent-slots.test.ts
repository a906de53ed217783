// Agent slots (docs/contract.md, "Agent slots"): SVC_MAX_CONCURRENT_AGENTS and an assistant's
// maxConcurrent bound how many agent processes run at once; a node waiting for one says so.
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  cleanupAll,
  onCleanup,
  getRun,
  projectWithWorkflows,
  readJsonLines,
  setProcessEnv,
  sleep,
  startRun,
  startServer,
  tempDir,
  waitFor,
  waitForRun,
  type Json,
} from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { SVC_BIN } from '../helpers/cli.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { spawn } from 'node:child_process';
import { createConversation, send, waitForReply } from '../helpers/conversations.js';

let project: string;
let spanLog: string;
let agentLog: string;

beforeAll(async () => {
  project = await projectWithWorkflows([
    { name: 'one-agent', nodes: [{ id: 'ask', prompt: 'ask [fake:slow=300]' }] },
    { name: 'holder', nodes: [{ id: 'hold', prompt: 'hold [fake:hang]' }] },
    { name: 'quick', nodes: [{ id: 'ask', prompt: 'quick' }] },
    { name: 'short-timeout', nodes: [{ id: 'ask', prompt: 'short', timeout: '2s' }] },
    {
      name: 'two-parallel',
      nodes: [
        { id: 'a', prompt: 'a [fake:slow=300]' },
        { id: 'b', prompt: 'b [fake:slow=300]' },
      ],
    },
  ]);
  const logs = await tempDir('svc-slots-log-');
  spanLog = join(logs, 'spans.log');
  agentLog = join(logs, 'claude.jsonl');
  setProcessEnv({ FAKE_CLAUDE_SPAN_LOG: spanLog, FAKE_CLAUDE_LOG: agentLog });
});
afterAll(cleanupAll);

const spans = () => (existsSync(spanLog) ? readFileSync(spanLog, 'utf8').split('\n').filter(Boolean) : []);

/** The most agents that were running at once, from the order of their start and end lines. */
function mostAtOnce(lines: string[]): number {
  let now = 0;
  let most = 0;
  for (const line of lines) {
    now += line.startsWith('start ') ? 1 : -1;
    most = Math.max(most, now);
  }
  return most;
}

const waitingNode = (run: Json) => Object.entries(run.nodes as Record<string, Json>).find(([, node]) => node.waitingFor === 'agent_slot')?.[0];
const startsOf = (text: string) => readJsonLines(agentLog).filter((call) => String(call.stdin).startsWith(text));

describe('SVC_MAX_CONCURRENT_AGENTS=1', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ socket: true, env: { SVC_MAX_CONCURRENT_AGENTS: '1' } });
  });

  it('runs the agents of two runs one after the other; the waiting node shows agent_slot', async () => {
    const before = spans().length;
    const first = await startRun(server, 'one-agent', { message: 'first', cwd: project });
    await waitFor(
      () => spans().length > before,
      20_000,
      () => 'for the first agent to start',
    );
    const second = await startRun(server, 'one-agent', { message: 'second', cwd: project });

    // While the first agent runs, the second run's node waits for a slot: `waiting`, not `running`
    // (issue 29: no process of it runs), in a run that is running.
    const waiting = await waitForRun(server, second, (run) => waitingNode(run) === 'ask');
    expect(waiting.status).toBe('running');
    expect(waiting.nodes.ask).toMatchObject({ status: 'waiting', waitingFor: 'agent_slot' });
    expect(waiting.nodes.ask.startedAt).toEqual(expect.any(String));

    const [a, b] = await Promise.all([waitForRun(server, first), waitForRun(server, second)]);
    expect(a.status).toBe('completed');
    expect(b.status).toBe('completed');
    expect(b.nodes.ask.waitingFor).toBeUndefined();
    expect(b.nodes.ask.status).toBe('completed');
    const said = (b.events as Json[]).filter((e) => e.type === 'node_waiting').map((e) => e.waitingFor);
    expect(said).toEqual(['agent_slot', null]);
    expect(a.events.some((e: Json) => e.type === 'node_waiting')).toBe(false);

    const lines = spans().slice(before);
    expect(lines).toHaveLength(4);
    expect(mostAtOnce(lines)).toBe(1);
  });

  it('a cancelled waiting run leaves the queue; the one behind it gets the slot', async () => {
    const holder = await startRun(server, 'holder', { message: 'hold', cwd: project });
    await waitFor(
      () => startsOf('hold').length === 1,
      20_000,
      () => 'for the holding agent',
    );
    const cancelled = await startRun(server, 'quick', { message: 'cancelled', cwd: project });
    await waitForRun(server, cancelled, (run) => waitingNode(run) === 'ask');
    const behind = await startRun(server, 'quick', { message: 'behind', cwd: project });
    await waitForRun(server, behind, (run) => waitingNode(run) === 'ask');

    expect((await api(server, 'POST', `/api/workflows/runs/${cancelled}/cancel`)).status).toBe(200);
    const gone = await waitForRun(server, cancelled);
    expect(gone.status).toBe('cancelled');
    expect(gone.nodes.ask).toMatchObject({ status: 'cancelled', error: 'cancelled' });
    expect(gone.nodes.ask.waitingFor).toBeUndefined();
    // Still behind the holder: only the cancelled waiter left.
    expect((await getRun(server, behind)).nodes.ask).toMatchObject({ status: 'waiting', waitingFor: 'agent_slot' });
    const shown = await runSvcInProcess(['runs', 'show', behind], { SVC_URL: server.url });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/ask\s+waiting.*waiting for agent_slot/);
    // The note is the slot's, not a wait node's (`waits …`).
    expect(shown.stdout).not.toMatch(/ask\s+waiting.*waits /);

    // `svc watch` of the waiting run says so, then follows it to its end.
    const watch = spawn(process.execPath, [SVC_BIN, 'watch', behind], { env: { ...process.env, SVC_URL: server.url }, stdio: ['ignore', 'pipe', 'pipe'] });
    onCleanup(() => watch.kill());
    let watched = '';
    watch.stdout.on('data', (chunk: Buffer) => (watched += chunk.toString()));
    const watchEnded = new Promise((resolve) => watch.on('close', resolve));
    await waitFor(
      () => watched.includes('ask waiting for an agent slot'),
      20_000,
      () => `for svc watch to say so; it printed: ${watched}`,
    );
    expect((await api(server, 'POST', `/api/workflows/runs/${holder}/cancel`)).status).toBe(200);
    const done = await waitForRun(server, behind);
    expect(done.status).toBe('completed');
    expect(await watchEnded).toBe(0);
    expect(watched).toMatch(/✔ ask/);
    // The cancelled run's agent never started; the holder's and the one behind's did, once each.
    expect(startsOf('quick')).toHaveLength(1);
    expect(startsOf('hold')).toHaveLength(1);
  });
});

describe('a node waiting for a slot', () => {
  it('starts its timeout when it gets the slot, not while it waits', async () => {
    const server = await startServer({ socket: true, env: { SVC_MAX_CONCURRENT_AGENTS: '1' } });
    const holds = startsOf('hold').length;
    const holder = await startRun(server, 'holder', { message: 'hold', cwd: project });
    await waitFor(
      () => startsOf('hold').length === holds + 1,
      20_000,
      () => 'for the holding agent',
    );
    const waiter = await startRun(server, 'short-timeout', { message: 'wait', cwd: project });
    await waitForRun(server, waiter, (run) => waitingNode(run) === 'ask');
    // Waiting longer than its 2 s timeout does not fail it: the timeout is its agent's. (Long enough
    // for the fake agent to start and answer once it has the slot, on a loaded machine too.)
    await sleep(2500);
    expect((await getRun(server, waiter)).nodes.ask).toMatchObject({ status: 'waiting', waitingFor: 'agent_slot' });
    expect((await api(server, 'POST', `/api/workflows/runs/${holder}/cancel`)).status).toBe(200);
    expect((await waitForRun(server, waiter)).status).toBe('completed');
  });
});

describe('a server stopping while a node waits for its slot', () => {
  it('interrupts the node as a running one, never leaving it waiting; so does recovery after a crash', async () => {
    const home = await tempDir('svc-slots-home-');
    const first = await startServer({ home, env: { SVC_MAX_CONCURRENT_AGENTS: '1' } });
    const holds = startsOf('hold').length;
    await startRun(first, 'holder', { message: 'hold', cwd: project });
    await waitFor(
      () => startsOf('hold').length === holds + 1,
      20_000,
      () => 'for the holding agent',
    );
    const quickBefore = startsOf('quick').length;
    const waiter = await startRun(first, 'quick', { message: 'stopped', cwd: project });
    await waitForRun(first, waiter, (run) => waitingNode(run) === 'ask');
    await first.stop();
    const file = join(home, 'data', 'runs', waiter, 'record.json');
    const record = JSON.parse(readFileSync(file, 'utf8')) as Json;
    expect(record).toMatchObject({ status: 'failed', error: 'interrupted' });
    expect(record.nodes.ask).toMatchObject({ status: 'failed', error: 'interrupted' });
    expect(record.nodes.ask.waitingFor).toBeUndefined();

    // A crash leaves the record as it was last saved: the run running, its node waiting for a slot.
    record.status = 'running';
    record.error = null;
    record.finishedAt = null;
    record.nodes.ask = { ...record.nodes.ask, status: 'waiting', waitingFor: 'agent_slot', error: null, finishedAt: null };
    writeFileSync(file, JSON.stringify(record));
    const second = await startServer({ home });
    const recovered = await getRun(second, waiter);
    expect(recovered).toMatchObject({ status: 'failed', error: 'interrupted' });
    expect(recovered.nodes.ask).toMatchObject({ status: 'failed', error: 'interrupted', errorCode: 'interrupted' });
    expect(recovered.nodes.ask.waitingFor).toBeUndefined();
    // Its agent never started, before or after.
    expect(startsOf('quick')).toHaveLength(quickBefore);
  });
});

describe('a conversation reply', () => {
  it('takes an agent slot like a node: it waits while a run holds the only one', async () => {
    const server = await startServer({ socket: true, env: { SVC_MAX_CONCURRENT_AGENTS: '1' } });
    const holds = startsOf('hold').length;
    const holder = await startRun(server, 'holder', { message: 'hold', cwd: project });
    await waitFor(
      () => startsOf('hold').length === holds + 1,
      20_000,
      () => 'for the holding agent',
    );
    const conversation = await createConversation(server);
    const messageId = await send(server, conversation.id, 'chat while busy');
    // Without slots its agent would be up at once; with the only slot held, it has not started.
    await sleep(300);
    expect(startsOf('chat while busy')).toHaveLength(0);
    expect((await api(server, 'POST', `/api/workflows/runs/${holder}/cancel`)).status).toBe(200);
    const reply = await waitForReply(server, conversation.id, messageId);
    expect(reply.content).toContain('chat while busy');
    expect(startsOf('chat while busy')).toHaveLength(1);
  });
});

describe("an assistant's maxConcurrent", () => {
  it('PATCH /api/config/assistants {claude: {maxConcurrent: 1}} runs parallel nodes one at a time', async () => {
    const server = await startServer({ socket: true });
    const set = await api(server, 'PATCH', '/api/config/assistants', { claude: { maxConcurrent: 1 } });
    expect(set.status).toBe(200);
    expect(set.body.assistants.claude.maxConcurrent).toBe(1);
    expect((await api(server, 'PATCH', '/api/config/assistants', { claude: { maxConcurrent: 0 } })).status).toBe(400);

    const before = spans().length;
    const runId = await startRun(server, 'two-parallel', { message: 'go', cwd: project });
    const waiting = await waitForRun(server, runId, (run) => waitingNode(run) !== undefined);
    expect(['a', 'b']).toContain(waitingNode(waiting));
    const done = await waitForRun(server, runId);
    expect(done.status).toBe('completed');
    const lines = spans().slice(before);
    expect(lines).toHaveLength(4);
    expect(mostAtOnce(lines)).toBe(1);

    const cleared = await api(server, 'PATCH', '/api/config/assistants', { claude: { maxConcurrent: null } });
    expect(cleared.body.assistants.claude.maxConcurrent).toBeNull();
  });
});
