// Prompt nodes through the claude adapter, driven against the fake agent: argv, stdin, model
// choice, cost and tokens, streamed text, failures, and the environment the agent gets.
import { realpathSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  waitForDeath,
  waitForRun,
} from '../helpers/runs.js';

// Workflow nodes edit unless they say otherwise (docs/contract.md, "Agent command lines").
// An `edit` node's agent runs in Claude Code's own sandbox, given with `--settings` (docs/decisions.md, "Agents in a sandbox").
const BASE_ARGV = [
  '-p',
  '--output-format',
  'stream-json',
  '--verbose',
  '--permission-mode',
  'acceptEdits',
  '--allowedTools',
  'Bash',
  '--settings',
  expect.stringMatching(/^\{"sandbox":\{"enabled":true,"failIfUnavailable":true,"allowUnsandboxedCommands":false,/),
];

let server: TestServer;
let project: string;
let logs: string;
let logFile: string;

/** The fake agent's invocations since the last `freshLog()`. */
const calls = (): Json[] => readJsonLines(logFile);

beforeAll(async () => {
  logs = await tempDir('svc-fake-log-');
  project = await projectWithWorkflows([
    {
      name: 'ask',
      nodes: [
        { id: 'first', prompt: 'Task: $ARGUMENTS\nRun $RUN_ID of $WORKFLOW_NAME in $WORKSPACE_DIR [fake:cost=0.25] [fake:reply=first answer]' },
        { id: 'second', prompt: 'Build on: $first.output [fake:cost=0.5]', depends_on: ['first'] },
      ],
    },
    {
      name: 'models',
      model: 'workflow-model',
      nodes: [
        { id: 'own', prompt: 'own model', model: 'node-model' },
        { id: 'inherited', prompt: 'workflow model' },
      ],
    },
    { name: 'configured', nodes: [{ id: 'plain', prompt: 'configured model' }] },
    { name: 'stream', nodes: [{ id: 'talk', prompt: '[fake:slow=60] [fake:reply=one two three four five six] [fake:tool]' }] },
    {
      name: 'agent-fail',
      nodes: [
        { id: 'bad', prompt: 'please [fake:fail]' },
        { id: 'other', bash: 'echo independent' },
      ],
    },
    { name: 'agent-crash', nodes: [{ id: 'crashy', prompt: 'please [fake:crash]' }] },
    // Starts at once, then takes 3 s per line: past the node's timeout.
    { name: 'agent-slow', nodes: [{ id: 'dawdle', prompt: 'slowly [fake:slow=3000] [fake:reply=a b c]', timeout: '1s' }] },
    {
      name: 'commands',
      nodes: [
        { id: 'review', command: 'review' },
        { id: 'missing', command: 'no-such-command' },
      ],
    },
  ]);
  await mkdir(join(project, '.svc', 'commands'), { recursive: true });
  await writeFile(
    join(project, '.svc', 'commands', 'review.md'),
    '---\ndescription: Review a change\n---\nReview $ARGUMENTS in run $RUN_ID [fake:reply=reviewed]\n',
  );
  // Markers of an enclosing agent session, set on the server's own process (it runs in-process).
  setProcessEnv({ CLAUDECODE: '1', CLAUDE_CODE_ENTRYPOINT: 'cli', SVC_TEST_CANARY: 'secret' });
  server = await startServer();
});
afterAll(cleanupAll);

let logCounter = 0;
/** Points FAKE_CLAUDE_LOG (read by the agent from the server's env, i.e. ours) at a new file. */
function freshLog(): void {
  logFile = join(logs, `calls-${++logCounter}.jsonl`);
  setProcessEnv({ FAKE_CLAUDE_LOG: logFile });
}

describe('a prompt node', () => {
  let run: Json;
  beforeAll(async () => {
    freshLog();
    run = await waitForRun(server, await startRun(server, 'ask', { message: `fix "it's" $(rm -rf /) now`, cwd: project }));
  });

  it('spawns the agent with exactly -p --output-format stream-json --verbose and the flags of permissions edit, in the run cwd', () => {
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    const invoked = calls();
    expect(invoked).toHaveLength(2);
    for (const call of invoked) {
      expect(call.argv).toEqual(BASE_ARGV);
      expect(call.cwd).toBe(realpathSync(project));
    }
  });

  it('sends the prompt on stdin with the variables and upstream outputs substituted as text', () => {
    const [first, second] = calls() as [Json, Json];
    expect(first.stdin).toBe(`Task: fix "it's" $(rm -rf /) now\nRun ${run.id} of ask in ${project} [fake:cost=0.25] [fake:reply=first answer]`);
    expect(second.stdin).toBe('Build on: first answer [fake:cost=0.5]');
    expect(run.nodes.first.output).toBe('first answer');
    expect(run.nodes.second.output).toBe('fake reply: Build on: first answer');
  });

  it('records cost and tokens on each node and sums the cost on the run', () => {
    expect(run.nodes.first.costUsd).toBe(0.25);
    expect(run.nodes.second.costUsd).toBe(0.5);
    expect(run.costUsd).toBeCloseTo(0.75, 10);
    const [first] = calls() as [Json];
    // The fake reports ceil(length / 4) tokens for the prompt and for the reply.
    expect(run.nodes.first.tokens).toEqual({ input: Math.ceil(first.stdin.length / 4), output: Math.ceil('first answer'.length / 4) });
    expect(run.nodes.second.tokens).toEqual({ input: expect.any(Number), output: expect.any(Number) });
    const completed = run.events.find((e: Json) => e.type === 'run_completed');
    expect(completed.costUsd).toBeCloseTo(0.75, 10);
  });

  it("gives the agent a least-privilege environment: no nested-agent markers, none of the server's other variables", () => {
    expect(process.env.CLAUDECODE).toBe('1');
    for (const call of calls()) {
      expect(call.envKeys).not.toContain('CLAUDECODE');
      expect(call.envKeys).not.toContain('CLAUDE_CODE_ENTRYPOINT');
      expect(call.envKeys).not.toContain('SVC_TEST_CANARY');
      expect(call.envKeys).toContain('PATH');
    }
  });
});

describe('model choice: node → workflow → configuration', () => {
  it('passes the node model, else the workflow model', async () => {
    freshLog();
    const run = await waitForRun(server, await startRun(server, 'models', { message: '', cwd: project }));
    expect(run.status).toBe('completed');
    const byPrompt = Object.fromEntries(calls().map((call) => [call.stdin, call.argv]));
    expect(byPrompt['own model']).toEqual([...BASE_ARGV, '--model', 'node-model']);
    expect(byPrompt['workflow model']).toEqual([...BASE_ARGV, '--model', 'workflow-model']);
  });

  it('passes no --model without one, and the configured model after PATCH /api/config/assistants', async () => {
    freshLog();
    const before = await waitForRun(server, await startRun(server, 'configured', { message: '', cwd: project }));
    expect(before.status).toBe('completed');
    expect(calls().at(-1)!.argv).toEqual(BASE_ARGV);

    const patched = await api(server, 'PATCH', '/api/config/assistants', { claude: { model: 'configured-model' } });
    expect(patched.status).toBe(200);
    const after = await waitForRun(server, await startRun(server, 'configured', { message: '', cwd: project }));
    expect(after.status).toBe('completed');
    expect(calls().at(-1)!.argv).toEqual([...BASE_ARGV, '--model', 'configured-model']);

    // A workflow's own model still wins over the configuration.
    const models = await waitForRun(server, await startRun(server, 'models', { message: '', cwd: project }));
    expect(models.status).toBe('completed');
    expect(calls().find((call) => call.stdin === 'workflow model')!.argv).toEqual([...BASE_ARGV, '--model', 'workflow-model']);
  });
});

describe('streaming and failures', () => {
  it('streams assistant text as node_output events', async () => {
    const run = await waitForRun(server, await startRun(server, 'stream', { message: '', cwd: project }));
    expect(run.status).toBe('completed');
    const chunks = run.events.filter((e: Json) => e.type === 'node_output' && e.nodeId === 'talk');
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    for (const chunk of chunks) expect(chunk.stream).toBe('assistant');
    expect(chunks.map((e: Json) => e.text).join('')).toBe('one two three four five six');
    expect(run.nodes.talk.output).toBe('one two three four five six');
    // Every chunk was persisted before the node completed.
    const completedSeq = run.events.find((e: Json) => e.type === 'node_completed' && e.nodeId === 'talk').seq;
    for (const chunk of chunks) expect(chunk.seq).toBeLessThan(completedSeq);
  });

  it('[fake:fail] (is_error result, exit 1) fails the node; independent nodes still run', async () => {
    const run = await waitForRun(server, await startRun(server, 'agent-fail', { message: '', cwd: project }));
    expect(run.status).toBe('failed');
    expect(run.nodes.bad.status).toBe('failed');
    expect(run.nodes.bad.error).toMatch(/fake failure/);
    expect(run.nodes.other).toMatchObject({ status: 'completed', output: 'independent' });
    expect(run.events.find((e: Json) => e.type === 'node_failed' && e.nodeId === 'bad')).toMatchObject({ code: 'agent_failed' });
  });

  it('[fake:crash] (no result line, exit 3) fails the node with what the agent said', async () => {
    const run = await waitForRun(server, await startRun(server, 'agent-crash', { message: '', cwd: project }));
    expect(run.status).toBe('failed');
    expect(run.nodes.crashy.status).toBe('failed');
    expect(run.nodes.crashy.error).toMatch(/simulated crash|exit code 3/);
  });
});

describe('timeout', () => {
  it("fails a prompt node that outlives the node's timeout and kills the agent", async () => {
    freshLog();
    const run = await waitForRun(server, await startRun(server, 'agent-slow', { message: '', cwd: project }));
    expect(run.status).toBe('failed');
    expect(run.events.find((e: Json) => e.type === 'node_failed' && e.nodeId === 'dawdle')).toMatchObject({ code: 'agent_timeout' });
    const [call] = calls() as [Json];
    await waitForDeath(call.pid);
  });
});

describe('command nodes', () => {
  it("send the command file's text (without front matter) as the prompt; an unknown command fails the node", async () => {
    freshLog();
    const run = await waitForRun(server, await startRun(server, 'commands', { message: 'the diff', cwd: project }));
    expect(run.nodes.review).toMatchObject({ status: 'completed', output: 'reviewed' });
    expect(calls().map((call) => call.stdin)).toEqual([`Review the diff in run ${run.id} [fake:reply=reviewed]\n`]);
    expect(run.nodes.missing.status).toBe('failed');
    expect(run.nodes.missing.error).toMatch(/no-such-command/);
    expect(run.events.find((e: Json) => e.type === 'node_failed' && e.nodeId === 'missing')).toMatchObject({ code: 'command_not_found' });
    expect(run.status).toBe('failed');
  });
});
