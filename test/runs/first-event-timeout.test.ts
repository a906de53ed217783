// First-event timeout of an agent subprocess (docs/contract.md, "Agent command lines" and "Log entries"): an agent
// that prints nothing is killed with its whole process group, the node fails with
// `agent_first_event_timeout`, and svc.log explains the environment without leaking values.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import {
  cleanupAll,
  type Json,
  killQuietly,
  liveGroupMembers,
  projectWithWorkflows,
  readLog,
  setProcessEnv,
  startRun,
  startServer,
  tempDir,
  waitFor,
  waitForDeath,
  waitForRun,
  readJsonLines,
} from '../helpers/runs.js';

const SECRET_VALUE = 'sk-test-4f8e1c0b-do-not-log-me';

let server: TestServer;
let project: string;
let logFile: string;

const fakeCalls = (): Json[] => readJsonLines(logFile);

beforeAll(async () => {
  logFile = join(await tempDir('svc-fake-log-'), 'calls.jsonl');
  project = await projectWithWorkflows([
    {
      name: 'silent',
      nodes: [
        { id: 'mute', prompt: 'say nothing [fake:hang]', model: 'hang-model' },
        { id: 'after', bash: 'echo never', depends_on: ['mute'] },
        { id: 'aside', bash: 'echo independent' },
      ],
    },
    { name: 'stubborn', nodes: [{ id: 'deaf', prompt: 'say nothing, ignore TERM [fake:hang] [fake:ignore-term]' }] },
  ]);
  // The agent inherits this process's env (the server runs in-process); a credential-like value
  // must never reach the log, only its name.
  setProcessEnv({ SVC_TEST_SECRET_TOKEN: SECRET_VALUE, FAKE_CLAUDE_LOG: logFile });
  server = await startServer({ env: { SVC_AGENT_FIRST_EVENT_TIMEOUT_MS: '800' } });
});
afterAll(async () => {
  for (const call of fakeCalls()) killQuietly(call.pid, 'fake-claude');
  await cleanupAll();
});

describe('an agent that prints nothing', () => {
  let run: Json;
  let call: Json;
  beforeAll(async () => {
    const runId = await startRun(server, 'silent', { message: '', cwd: project });
    run = await waitForRun(server, runId);
    call = fakeCalls().find((c) => c.stdin.includes('say nothing'))!;
  });

  it('fails the node with agent_first_event_timeout; the rest of the DAG follows its rules', () => {
    expect(run.status).toBe('failed');
    expect(run.nodes.mute.status).toBe('failed');
    expect(run.nodes.mute.error).toMatch(/no output within 800 ms/);
    expect(run.events.find((e: Json) => e.type === 'node_failed' && e.nodeId === 'mute')).toMatchObject({ code: 'agent_first_event_timeout' });
    expect(run.nodes.after.status).toBe('skipped');
    expect(run.nodes.aside).toMatchObject({ status: 'completed', output: 'independent' });
  });

  it('kills the agent and its whole process group', async () => {
    expect(call).toBeDefined();
    // The agent is spawned as a group leader: its pid is the group id.
    await waitForDeath(call.pid);
    await waitFor(
      () => liveGroupMembers(call.pid).length === 0,
      15_000,
      () => `for group ${call.pid} to empty`,
    );
  });

  it('writes agent.first_event_timeout with env key names, model, uid and TTY state — never values', () => {
    const entries = readLog(server.home).filter((e) => e.event === 'agent.first_event_timeout');
    expect(entries).toHaveLength(1);
    const [entry] = entries as [Json];
    expect(entry.level).toBe('warn');
    expect(entry.parentEnvKeys).toEqual(expect.arrayContaining(['PATH', 'SVC_TEST_SECRET_TOKEN']));
    for (const key of entry.parentEnvKeys) expect(key).toMatch(/^[^=]+$/);
    expect(entry.model).toBe('hang-model');
    expect(entry.uid).toBe(process.getuid!());
    expect(typeof entry.stdoutIsTTY).toBe('boolean');
    const whole = readFileSync(join(server.home, 'logs', 'svc.log'), 'utf8');
    expect(whole).not.toContain(SECRET_VALUE);
  });
});

it('an agent that ignores SIGTERM is killed with SIGKILL after the grace period', async () => {
  const runId = await startRun(server, 'stubborn', { message: '', cwd: project });
  const run = await waitForRun(server, runId, undefined, 30_000);
  expect(run.status).toBe('failed');
  expect(run.events.find((e: Json) => e.type === 'node_failed' && e.nodeId === 'deaf')).toMatchObject({ code: 'agent_first_event_timeout' });
  const call = fakeCalls().find((c) => c.stdin.includes('ignore TERM'))!;
  await waitForDeath(call.pid);
  expect(liveGroupMembers(call.pid)).toEqual([]);
}, 45_000);
