// What the CLI says of agents' tool calls (docs/decisions.md, "Tool activity"; docs/contract.md, "Exit codes"): `svc run`
// shows refused calls as they happen and every call with --verbose, its last line says the agent
// was denied tools and it exits 6; `svc runs show` and `svc watch --verbose` say the same.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeToolLines, codexToolLines, writeLines } from '../helpers/recorded-lines.js';
import { FAKE_CODEX } from '../helpers/conversations.js';
import { api, cleanupAll, FAKE_CLAUDE, getRun, onCleanup, startServer, tempDir, waitFor, waitForRun, writeWorkflows } from '../helpers/runs.js';
import { runCli, SVC_BIN } from '../helpers/cli.js';
import { closedPort, svcEnv } from '../helpers/serve-process.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
let project: string;
let flag: string;
let conversationLines: string;
const AGENTS = { SVC_CLAUDE_BIN: FAKE_CLAUDE, SVC_CODEX_BIN: FAKE_CODEX };
const DENIED_LINE = /^completed tools \S+ .*— the agent was denied 1 tool call: Write src\/math\.js$/;

beforeAll(async () => {
  project = await tempDir('svc-cli-tools-');
  const recorded = await tempDir('svc-cli-recorded-');
  const claude = await writeLines(recorded, 'claude.jsonl', claudeToolLines(project));
  const codex = await writeLines(recorded, 'codex.jsonl', codexToolLines(project));
  const clean = await writeLines(recorded, 'clean.jsonl', claudeToolLines(project).slice(3));
  flag = join(recorded, 'release');
  // A conversation answers in the server's working directory.
  conversationLines = await writeLines(recorded, 'conversation.jsonl', claudeToolLines(process.cwd()));
  const agentNodes = [
    { id: 'impl', prompt: `Implement it [fake:lines=${claude}] [fake:reply=DONE]` },
    { id: 'check', prompt: `Check it [fake:lines=${codex}]`, assistant: 'codex', depends_on: ['impl'] },
  ];
  await writeWorkflows(project, [
    { name: 'tools', nodes: agentNodes },
    { name: 'gated', nodes: [agentNodes[0]!, { id: 'gate', approval: { message: 'Ship it?' }, depends_on: ['impl'] }] },
    { name: 'allowed', nodes: [{ id: 'impl', prompt: `Run the tests [fake:lines=${clean}]` }] },
    // Held open until the test writes the flag file, so a watcher can join it while it runs.
    { name: 'held', nodes: [...agentNodes, { id: 'hold', bash: `while [ ! -f '${flag}' ]; do sleep 0.05; done`, depends_on: ['check'] }] },
  ]);
  server = await startServer({ socket: true, env: AGENTS });
});
afterAll(cleanupAll);

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1)!;

/** A spawned `svc` whose output can be read while it runs; killed at clean-up. */
function spawnSvc(args: string[]): { stdout(): string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [SVC_BIN, ...args], { env: svcEnv({ SVC_URL: server.url }) });
  onCleanup(() => child.kill('SIGKILL'));
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return { stdout: () => stdout, exited: new Promise((resolve) => child.on('close', resolve)) };
}

/**
 * `svc watch --all` and `--conversation` follow a stream live, from when it opens, which nothing
 * outside the process can see: `act` is repeated until the watcher shows `expected`.
 */
async function untilShown(watcher: { stdout(): string }, expected: string, act: () => Promise<unknown>): Promise<void> {
  await waitFor(
    async () => {
      if (watcher.stdout().includes(expected)) return true;
      await act();
      return waitFor(() => watcher.stdout().includes(expected), 2_000).catch(() => false);
    },
    25_000,
    () => `for "${expected}"; got ${watcher.stdout()}`,
  );
}

describe('svc run through a server', () => {
  const env = () => ({ SVC_URL: server.url });

  it('ends with the refused calls on its last line and exit code 6; a refusal shows as it happens', async () => {
    const result = await runCli(['run', 'tools', 'add it'], { env: env(), cwd: project });
    expect(result.code, result.stderr).toBe(6);
    expect(lastLine(result.stdout)).toMatch(DENIED_LINE);
    expect(result.stdout).toContain('[impl] tool denied: Write src/math.js');
    // Without --verbose, calls that ran are not listed.
    expect(result.stdout).not.toContain('Bash: npm test');
  });

  it('with --verbose lists every call of every node as it resolves', async () => {
    const result = await runCli(['run', 'tools', 'add it', '--verbose'], { env: env(), cwd: project });
    expect(result.code, result.stderr).toBe(6);
    const lines = result.stdout.split('\n');
    const order = [
      '[impl] tool denied: Write src/math.js',
      '[impl] tool: Bash: npm test',
      '[check] tool failed: exec: npm test (exit 1)',
      '[check] tool: patch: update src/math.js',
    ];
    expect(order.map((line) => lines.indexOf(line))).toEqual([...order.map((line) => lines.indexOf(line))].sort((a, b) => a - b));
    for (const line of order) expect(lines).toContain(line);
  });

  it('exits 0 with a plain last line when no call was refused', async () => {
    const result = await runCli(['run', 'allowed', '--verbose'], { env: env(), cwd: project });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('[impl] tool: Bash: npm test');
    expect(lastLine(result.stdout)).toMatch(/^completed allowed \S+ in /);
    expect(lastLine(result.stdout)).not.toContain('denied');
  });

  it('svc runs show says the agent was denied tools, and counts each node’s calls', async () => {
    const run = await runCli(['run', 'tools', '--detach'], { env: env(), cwd: project });
    const runId = run.stdout.trim();
    await waitForRun(server, runId);
    const shown = await runCli(['runs', 'show', runId], { env: env() });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout.split('\n')[0]).toMatch(/completed — the agent was denied 1 tool call: Write src\/math\.js/);
    // Piped, the table is tab-separated: NODE STATUS DURATION COST ATTEMPTS TOOLS MEMORY CPU NOTE
    // (memory and CPU time are measured, so only their columns are counted here).
    const row = (node: string) =>
      shown.stdout
        .split('\n')
        .find((line) => line.startsWith(`${node}\t`))!
        .split('\t');
    expect(row('impl')).toHaveLength(9);
    expect([row('impl')[5], row('impl')[8]]).toEqual(['2 (1 denied)', 'denied: Write src/math.js']);
    expect([row('check')[5], row('check')[8]]).toEqual(['2', '']);
  });
});

describe('svc approve', () => {
  it('says, beside the outcome, that the agent was denied tools', async () => {
    const runId = (await runCli(['run', 'gated', '--detach'], { env: { SVC_URL: server.url }, cwd: project })).stdout.trim();
    await waitForRun(server, runId, (run) => run.status === 'paused');
    const approved = await runCli(['approve', runId], { env: { SVC_URL: server.url } });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toMatch(new RegExp(`^Run ${runId} approved \\(now \\w+ — the agent was denied 1 tool call: Write src/math\\.js\\)\\.$`, 'm'));
  });
});

describe('svc watch --verbose', () => {
  it("shows a running run's tool calls, and --exit-status exits 6 when it completes with refusals", async () => {
    const runId = (await runCli(['run', 'held', '--detach'], { env: { SVC_URL: server.url }, cwd: project })).stdout.trim();
    await waitForRun(server, runId, (run) => run.nodes.hold?.status === 'running');
    const watcher = spawnSvc(['watch', runId, '--verbose', '--exit-status']);
    // The watcher replays the run's history first: the calls are there while the run still runs.
    await waitFor(
      () => watcher.stdout().includes('[check] tool: patch: update src/math.js'),
      20_000,
      () => `for the tool lines; got ${watcher.stdout()}`,
    );
    expect(watcher.stdout()).toContain('[impl] tool denied: Write src/math.js');
    expect(watcher.stdout()).toContain('[check] tool failed: exec: npm test (exit 1)');
    expect((await getRun(server, runId)).status).toBe('running');
    await writeFile(flag, '');
    expect(await watcher.exited).toBe(6);
    expect(lastLine(watcher.stdout())).toMatch(/^completed held \S+ .*— the agent was denied 1 tool call: Write src\/math\.js$/);
  });

  it('--all prints each run event of a tool call, with its run and node', async () => {
    const watcher = spawnSvc(['watch', '--all', '--verbose']);
    // The watcher may join a run after its first node's calls: wait for a run it saw from its
    // first call (impl's), whose later calls (check's) it then sees too.
    await untilShown(watcher, 'agent_tool impl tool denied: Write src/math.js', () =>
      runCli(['run', 'tools', '--detach'], { env: { SVC_URL: server.url }, cwd: project }),
    );
    const [, runId] = /^\S+ (run_\S+) agent_tool impl tool denied: Write src\/math\.js$/m.exec(watcher.stdout())!;
    await waitFor(
      () => watcher.stdout().includes(`${runId} agent_tool check tool failed: exec: npm test (exit 1)`),
      20_000,
      () => `for ${runId}'s check call; got ${watcher.stdout()}`,
    );
    // Both calls of the run, each on a line of its own with its run and node.
    const lines = watcher.stdout().split('\n');
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\S+ ${runId} agent_tool impl tool denied: Write src/math\\.js$`)));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\S+ ${runId} agent_tool check tool failed: exec: npm test \\(exit 1\\)$`)));
  });

  it("--conversation prints the replying agent's tool calls", async () => {
    const { body: conversation } = await api(server, 'POST', '/api/conversations', {});
    const watcher = spawnSvc(['watch', '--conversation', conversation.id, '--verbose']);
    await untilShown(watcher, 'tool: Bash: npm test', () =>
      api(server, 'POST', `/api/conversations/${conversation.id}/message`, { message: `go [fake:lines=${conversationLines}] [fake:reply=ok]` }),
    );
    expect(watcher.stdout()).toMatch(/^tool denied: Write src\/math\.js$/m);
  });
});

describe('svc run without a server (in the foreground)', () => {
  it('says the same and exits 6', async () => {
    const home = await tempDir('svc-cli-tools-home-');
    const result = await runCli(['run', 'tools', '--verbose'], { env: { ...AGENTS, SVC_HOME: home, PORT: String(await closedPort()) }, cwd: project });
    expect(result.code, result.stderr).toBe(6);
    expect(result.stdout).toContain('[check] tool failed: exec: npm test (exit 1)');
    expect(lastLine(result.stdout)).toMatch(DENIED_LINE);
  });
});
