// Memory admission and limits for agents (docs/contract.md, "Memory admission"): an agent node
// takes its place in the memory budget only once it holds an agent slot, so a node waiting for a
// slot holds no memory; a conversation reply's agent is admitted to the same budget as the nodes,
// and is stopped past its assistant's `maxMemory` (`svc config set-memory`).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { createConversation, send, waitForReply } from '../helpers/conversations.js';
import type { TestServer } from '../helpers/server.js';
import {
  api,
  cleanupAll,
  type Json,
  isAlive,
  projectWithWorkflows,
  readJsonLines,
  setProcessEnv,
  startRun,
  startServer,
  tempDir,
  waitFor,
  waitForDeath,
  waitForRun,
} from '../helpers/runs.js';

let server: TestServer;
let project: string;
let dir: string;
const calls = (): Json[] => readJsonLines(join(dir, 'claude.jsonl'));
const callFor = (text: string) => calls().find((call) => String(call.stdin).includes(text));

// A real process holding 20 MiB until `file` exists; the budget counts it at its `memory:`.
const holdUntil = (file: string) =>
  `python3 -c "import os, time; b = b'x' * (20 * 1024 * 1024); [time.sleep(0.05) for _ in iter(lambda: os.path.exists('${file}'), True)]"`;

beforeAll(async () => {
  dir = await tempDir('svc-memory-agents-');
  setProcessEnv({ FAKE_CLAUDE_LOG: join(dir, 'claude.jsonl') });
  project = await projectWithWorkflows([
    // About 6 s: three lines 2 s apart.
    { name: 'slow-agent', nodes: [{ id: 'ask', prompt: 'slow-probe [fake:slow=2000]' }] },
    { name: 'queued-agent', nodes: [{ id: 'ask', prompt: 'queued-probe' }] },
    { name: 'half-gig', nodes: [{ id: 'fit', bash: 'echo fits', memory: '500MB' }] },
    { name: 'holds-700', nodes: [{ id: 'hold', bash: holdUntil(join(dir, 'release-700')), memory: '700MB' }] },
  ]);
  // One agent at a time; 1000 MB holds an agent's default 400 MiB (419 MB) and 500 MB, not two agents and 500 MB.
  server = await startServer({ socket: true, env: { SVC_MEMORY_BUDGET: '1000MB', SVC_MAX_CONCURRENT_AGENTS: '1' } });
});
afterAll(cleanupAll);

const waitingFor = (nodeId: string, reason: string) => (run: Json) => run.nodes[nodeId].status === 'waiting' && run.nodes[nodeId].waitingFor === reason;

describe('an agent node waiting for an agent slot', () => {
  it('holds no memory: a bash node that fits beside the running agent alone runs at once', async () => {
    const first = await startRun(server, 'slow-agent', { message: '', cwd: project });
    await waitFor(() => callFor('slow-probe'));
    const second = await startRun(server, 'queued-agent', { message: '', cwd: project });
    await waitForRun(server, second, waitingFor('ask', 'agent_slot'));
    // 419 MB (the running agent) + 500 MB fits 1000 MB; with the waiting agent's 419 MB it would not.
    const bash = await waitForRun(server, await startRun(server, 'half-gig', { message: '', cwd: project }), undefined, 10_000);
    expect(bash.status).toBe('completed');
    expect((bash.events as Json[]).filter((e) => e.type === 'node_waiting')).toEqual([]);
    const stillRunning = await waitForRun(server, first, () => true);
    expect(stillRunning.status).toBe('running');

    const [a, b] = [await waitForRun(server, first), await waitForRun(server, second)];
    expect([a.status, b.status]).toEqual(['completed', 'completed']);
    // The queued agent waited for its slot, not for memory: it took its place only once it had the slot.
    // (A node_waiting with no reason says the wait is over.)
    const waits = (b.events as Json[]).filter((e) => e.type === 'node_waiting').map((e) => e.waitingFor);
    expect(waits).toEqual(['agent_slot', null]);
  }, 40_000);
});

describe('a conversation reply', () => {
  it("is admitted to the nodes' memory budget: it waits while a node holds what it needs, then answers", async () => {
    const runId = await startRun(server, 'holds-700', { message: '', cwd: project });
    await waitForRun(server, runId, (run) => run.nodes.hold.status === 'running' && run.nodes.hold.waitingFor === undefined);
    const conversation = await createConversation(server);
    const messageId = await send(server, conversation.id, 'admission-probe');
    // 700 MB + 419 MB does not fit 1000 MB: the agent is not started while the node runs.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(callFor('admission-probe')).toBeUndefined();
    writeFileSync(join(dir, 'release-700'), '');
    const reply = await waitForReply(server, conversation.id, messageId);
    expect(reply).toMatchObject({ role: 'assistant', content: 'fake reply: admission-probe' });
    expect((await waitForRun(server, runId)).status).toBe('completed');
  }, 40_000);

  it("is stopped past its assistant's maxMemory, set with `svc config set-memory`, and fails memory_exceeded", async () => {
    const set = await runSvcInProcess(['config', 'set-memory', 'claude', '100MB'], { SVC_URL: server.url });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toBe("claude's agent is stopped past 100 MB when it answers a conversation.\n");
    expect((await api(server, 'GET', '/api/config')).body.assistants.claude.maxMemoryBytes).toBe(100_000_000);
    const shown = await runSvcInProcess(['config', 'show'], { SVC_URL: server.url });
    expect(shown.stdout).toMatch(/claude max memory\s+100 MB \(conversation replies\)/);
    expect(shown.stdout).toMatch(/memory budget\s+1 GB/);

    const conversation = await createConversation(server);
    const started = Date.now();
    const reply = await waitForReply(server, conversation.id, await send(server, conversation.id, 'hungry-probe [fake:hold=300]'));
    expect(reply.role).toBe('system');
    expect(reply.metadata).toMatchObject({ code: 'memory_exceeded' });
    expect(reply.metadata.error).toMatch(/^its agent's processes reached \d+(\.\d)? MB, over the assistant's maxMemory 100 MB, and were stopped$/);
    // It holds 300 MiB for 3 s before answering: stopped, not answered.
    expect(Date.now() - started).toBeLessThan(3_000);
    const pid = Number(callFor('hungry-probe')!.pid);
    await waitForDeath(pid);
    expect(isAlive(pid)).toBe(false);

    const cleared = await runSvcInProcess(['config', 'set-memory', 'claude', 'none'], { SVC_URL: server.url });
    expect(cleared.code, cleared.stderr).toBe(0);
    expect((await api(server, 'GET', '/api/config')).body.assistants.claude.maxMemoryBytes).toBeNull();
    const answered = await waitForReply(server, conversation.id, await send(server, conversation.id, 'hungry-again [fake:hold=300]'));
    expect(answered).toMatchObject({ role: 'assistant', content: 'fake reply: hungry-again' });
  }, 40_000);

  it('refuses a size that is not one, as a usage error and as a 400', async () => {
    const bad = await runSvcInProcess(['config', 'set-memory', 'claude', 'lots'], { SVC_URL: server.url });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('maxMemory must be a size (a number and a unit, such as 512KiB, 600MB, 2GB, 1.5GiB)');
    const response = await api(server, 'PATCH', '/api/config/assistants', { claude: { maxMemory: '12' } });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_request');
  });
});
