// The stall watchdog (docs/decisions.md, "Stalls"): a node whose process prints nothing for
// its `idle_timeout` is stopped with its whole process group and fails `stalled`, retried as its
// `retry` says; agent nodes get `SVC_AGENT_IDLE_TIMEOUT_MS` (or their workflow's) when they set
// none, bash nodes are watched only when they ask to be.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings, SettingsError } from '../../src/shared/settings.js';
import { FAKE_CODEX } from '../helpers/conversations.js';
import type { TestServer } from '../helpers/server.js';
import {
  cleanupAll,
  type Json,
  isAlive,
  killQuietly,
  liveGroupMembers,
  projectWithWorkflows,
  readJsonLines,
  readPidFile,
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
let claudeLog: string;
let codexLog: string;
let childPidFile: string;
let bashPidFile: string;

const calls = (file: string, marker: string): Json[] => readJsonLines(file).filter((call) => String(call.stdin).includes(marker));
const failedEvent = (run: Json, nodeId: string): Json | undefined => run.events.find((e: Json) => e.type === 'node_failed' && e.nodeId === nodeId);

async function expectGroupGone(pid: number): Promise<void> {
  // An agent is spawned as a group leader: its pid is the group id.
  await waitForDeath(pid);
  await waitFor(
    () => liveGroupMembers(pid).length === 0,
    15_000,
    () => `for group ${pid} to empty`,
  );
}

beforeAll(async () => {
  const dir = await tempDir('svc-idle-');
  claudeLog = join(dir, 'claude.jsonl');
  codexLog = join(dir, 'codex.jsonl');
  childPidFile = join(dir, 'grandchild.pid');
  bashPidFile = join(dir, 'bash.pid');
  const ticks = (stream: string) => `for i in 1 2 3 4 5 6 7 8 9 10; do echo tick $i${stream}; sleep 0.2; done; echo done`;
  project = await projectWithWorkflows([
    {
      name: 'stall-claude',
      nodes: [
        { id: 'mute', prompt: 'go quiet [fake:silent-after-first]', idle_timeout: '1s', retry: { max_attempts: 2 } },
        { id: 'after', bash: 'echo never', depends_on: ['mute'] },
      ],
    },
    { name: 'stall-codex', nodes: [{ id: 'cmute', assistant: 'codex', prompt: 'codex quiet [fake:silent-after-first]', idle_timeout: '1s' }] },
    { name: 'stall-default', nodes: [{ id: 'dmute', prompt: 'default quiet [fake:silent-after-first]' }] },
    {
      name: 'stall-workflow',
      idle_timeout: '1s',
      nodes: [
        { id: 'wmute', prompt: 'workflow quiet [fake:silent-after-first]' },
        // The workflow's idle_timeout is a default for agents: this bash node is not watched.
        { id: 'quiet_bash', bash: 'sleep 1.5; echo slept' },
      ],
    },
    { name: 'bash-stall', nodes: [{ id: 'sleeper', bash: `echo $$ > '${bashPidFile}'; sleep 30`, idle_timeout: '1s' }] },
    {
      name: 'bash-chatty',
      nodes: [
        { id: 'ticker', bash: ticks(''), idle_timeout: '1s' },
        { id: 'grumbler', bash: ticks(' >&2'), idle_timeout: '1s' },
      ],
    },
  ]);
  setProcessEnv({ FAKE_CLAUDE_LOG: claudeLog, FAKE_CODEX_LOG: codexLog, FAKE_CLAUDE_CHILD_PID_FILE: childPidFile });
  server = await startServer({ env: { SVC_CODEX_BIN: FAKE_CODEX, SVC_AGENT_IDLE_TIMEOUT_MS: '1500' } });
});
afterAll(async () => {
  for (const call of [...readJsonLines(claudeLog), ...readJsonLines(codexLog)]) killQuietly(call.pid, 'fake-');
  await cleanupAll();
});

describe('an agent that goes silent after its first event', () => {
  let run: Json;
  beforeAll(async () => {
    run = await waitForRun(server, await startRun(server, 'stall-claude', { message: '', cwd: project }), undefined, 40_000);
  }, 45_000);

  it('fails the node stalled, naming the silence, after every attempt its retry allows; nothing after it runs', () => {
    expect(run.status).toBe('failed');
    expect(run.nodes.mute).toMatchObject({ status: 'failed', attempts: 2, output: null });
    expect(run.nodes.mute.error).toBe('claude produced no output for 1s (idle_timeout); it was stopped');
    expect(failedEvent(run, 'mute')).toMatchObject({ code: 'stalled', attempts: 2 });
    const system = run.events.filter((e: Json) => e.type === 'node_output' && e.nodeId === 'mute' && e.stream === 'system');
    expect(system.map((e: Json) => e.text).join('')).toContain('attempt 1 failed: claude produced no output for 1s (idle_timeout)');
    expect(run.events.some((e: Json) => e.type === 'node_completed' && e.nodeId === 'mute')).toBe(false);
    expect(run.nodes.after.status).toBe('skipped');
  });

  it('stops each attempt with its whole process tree', async () => {
    const attempts = calls(claudeLog, 'go quiet');
    expect(attempts).toHaveLength(2);
    for (const call of attempts) await expectGroupGone(call.pid);
    // The grandchild the fake started (the last attempt's: each one writes the file) is gone too.
    await waitForDeath(await readPidFile(childPidFile));
  });
});

it('stops a silent codex the same way', async () => {
  const run = await waitForRun(server, await startRun(server, 'stall-codex', { message: '', cwd: project }), undefined, 30_000);
  expect(run.nodes.cmute).toMatchObject({ status: 'failed', error: 'codex produced no output for 1s (idle_timeout); it was stopped' });
  expect(failedEvent(run, 'cmute')).toMatchObject({ code: 'stalled' });
  const [call] = calls(codexLog, 'codex quiet');
  await expectGroupGone(call!.pid);
}, 40_000);

it('gives an agent node without idle_timeout the server default, SVC_AGENT_IDLE_TIMEOUT_MS', async () => {
  const run = await waitForRun(server, await startRun(server, 'stall-default', { message: '', cwd: project }), undefined, 30_000);
  expect(run.nodes.dmute).toMatchObject({ status: 'failed', error: 'claude produced no output for 1.5s (idle_timeout); it was stopped' });
  expect(failedEvent(run, 'dmute')).toMatchObject({ code: 'stalled' });
}, 40_000);

it("gives agent nodes the workflow's idle_timeout, and leaves its bash nodes unwatched", async () => {
  const run = await waitForRun(server, await startRun(server, 'stall-workflow', { message: '', cwd: project }), undefined, 30_000);
  expect(run.nodes.wmute).toMatchObject({ status: 'failed', error: 'claude produced no output for 1s (idle_timeout); it was stopped' });
  expect(failedEvent(run, 'wmute')).toMatchObject({ code: 'stalled' });
  expect(run.nodes.quiet_bash).toMatchObject({ status: 'completed', output: 'slept' });
}, 40_000);

it('stops a bash node that prints nothing for its idle_timeout, with what it started', async () => {
  const runId = await startRun(server, 'bash-stall', { message: '', cwd: project });
  const pid = await readPidFile(bashPidFile);
  const run = await waitForRun(server, runId, undefined, 30_000);
  expect(run.status).toBe('failed');
  expect(run.nodes.sleeper).toMatchObject({ status: 'failed', error: 'no output for 1s (idle_timeout); bash was stopped' });
  expect(failedEvent(run, 'sleeper')).toMatchObject({ code: 'stalled', attempts: 1 });
  await expectGroupGone(pid);
  expect(isAlive(pid)).toBe(false);
}, 40_000);

it('lets a bash node that keeps printing (on stdout or stderr) run past its idle_timeout', async () => {
  const run = await waitForRun(server, await startRun(server, 'bash-chatty', { message: '', cwd: project }), undefined, 30_000);
  expect(run.status).toBe('completed');
  expect(run.nodes.ticker).toMatchObject({ status: 'completed', output: expect.stringMatching(/^tick 1\n[\s\S]*tick 10\ndone$/) });
  expect(run.nodes.grumbler).toMatchObject({ status: 'completed', output: 'done' });
}, 40_000);

it('reads SVC_AGENT_IDLE_TIMEOUT_MS as whole milliseconds, 10 minutes by default, refusing what no timer can wait', () => {
  expect(loadSettings({}).agentIdleTimeoutMs).toBe(600_000);
  expect(loadSettings({ SVC_AGENT_IDLE_TIMEOUT_MS: '90000' }).agentIdleTimeoutMs).toBe(90_000);
  for (const bad of ['0', '-5', '1.5', '10m', '2147483648']) {
    expect(() => loadSettings({ SVC_AGENT_IDLE_TIMEOUT_MS: bad }), bad).toThrow(SettingsError);
  }
  expect(() => loadSettings({ SVC_AGENT_IDLE_TIMEOUT_MS: '2147483648' })).toThrow(/SVC_AGENT_IDLE_TIMEOUT_MS must be at most 2147483647/);
});
