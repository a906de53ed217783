// Workspaces end to end through the real server: registration by file:// clone and by path, a
// worktree per run (side by side, removed with the run), workspace env values that never come
// back out, and the env-leak gate with its audit entries.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { api, cleanupAll, getRun, readJsonLines, readLog, startRun, startServer, tempDir, waitForRun, writeWorkflows, type Json } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { git, makeBareRepository, makeRepository } from '../helpers/git.js';

afterEach(cleanupAll);

const CANARY = 'canary-4f1e9b-secret-value';
const listDir = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

/** A git project registered by path, with the given files committed and workflows in its .svc/. */
async function registeredProject(server: TestServer, files: Record<string, string> = {}, workflows: Json[] = []) {
  const dir = join(await tempDir('svc-ws-project-'), 'project');
  await mkdir(dir);
  makeRepository(dir, { 'README.md': '# project\n', ...files });
  if (workflows.length) await writeWorkflows(dir, workflows as never);
  const { status, body } = await api(server, 'POST', '/api/workspaces', { path: dir });
  expect(status, JSON.stringify(body)).toBe(201);
  return { dir, workspace: body as Json };
}

describe('registering', () => {
  it('clones a file:// URL, lists it, and answers 404, 409 and 400 as documented', async () => {
    const server = await startServer({ socket: true });
    const bare = makeBareRepository(await tempDir('svc-ws-bare-'), 'widgets');
    const created = await api(server, 'POST', '/api/workspaces', { url: `file://${bare}` });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'widgets', source: 'clone', default_branch: 'main', allow_env_keys: false, env_keys: [] });
    expect(created.body.path).toBe(join(server.home, 'workspaces', created.body.id, 'source'));
    expect((await api(server, 'GET', '/api/workspaces')).body).toEqual({ workspaces: [created.body], total: 1 });
    expect((await api(server, 'GET', `/api/workspaces/${created.body.id}`)).body).toEqual({
      ...created.body,
      disk: { worktrees: 0, bytes: 0 },
      pool: { size: 0, worktrees: [], error: null },
    });

    const again = await api(server, 'POST', '/api/workspaces', { url: `file://${bare}/` });
    expect(again).toMatchObject({ status: 409, body: { error: 'workspace_exists', details: { id: created.body.id } } });
    expect(await api(server, 'GET', '/api/workspaces/ws_nope')).toMatchObject({ status: 404, body: { error: 'workspace_not_found' } });
    const dir = await tempDir('svc-ws-any-');
    for (const body of [
      {},
      { url: `file://${bare}`, path: dir },
      { path: join(dir, 'missing') },
      { url: 'http://example.com/x' },
      { url: '-c x' },
      { nope: 1 },
    ]) {
      const answer = await api(server, 'POST', '/api/workspaces', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error).toBe('invalid_request');
    }
    const failed = await api(server, 'POST', '/api/workspaces', { url: `file://${dir}/nothing-here.git` });
    expect(failed).toMatchObject({ status: 400, body: { error: 'clone_failed' } });
    expect(listDir(join(server.home, 'workspaces'))).toEqual([created.body.id]);
    expect((await api(server, 'PATCH', `/api/workspaces/${created.body.id}`, { allowEnvKeys: 'yes' })).status).toBe(400);
    expect((await api(server, 'PATCH', `/api/workspaces/${created.body.id}`, { allowEnvKeys: true, other: 1 })).status).toBe(400);
  });
});

describe('a worktree per run', () => {
  const WORKFLOWS = [
    {
      name: 'touch',
      description: 'writes a file named after the message, then lists the files',
      nodes: [
        { id: 'write', bash: 'printf x > "$ARGUMENTS.txt"; sleep 0.3' },
        { id: 'list', bash: 'ls; git rev-parse --abbrev-ref HEAD; pwd', depends_on: ['write'] },
      ],
    },
  ];

  it('runs two runs side by side in their own worktrees, lists them as environments, and removes one with its run', async () => {
    const server = await startServer({ socket: true });
    const { dir, workspace } = await registeredProject(server, {}, WORKFLOWS);
    const first = await startRun(server, 'touch', { message: 'one', workspaceId: workspace.id });
    const second = await startRun(server, 'touch', { message: 'two', workspaceId: workspace.id });
    const [a, b] = await Promise.all([waitForRun(server, first), waitForRun(server, second)]);
    expect([a.status, b.status]).toEqual(['completed', 'completed']);
    const worktree = (id: string) => join(server.home, 'workspaces', workspace.id, 'worktrees', id);
    expect(a).toMatchObject({ workspaceId: workspace.id, cwd: worktree(first) });
    expect(a.nodes.list.output.split('\n')).toEqual(expect.arrayContaining(['one.txt', `svc/${first}`, worktree(first)]));
    expect(a.nodes.list.output).not.toContain('two.txt');
    expect(b.nodes.list.output).toContain('two.txt');
    expect(b.nodes.list.output).not.toContain('one.txt');
    // The user's own checkout is untouched.
    expect(listDir(dir).sort()).toEqual(['.git', '.svc', 'README.md']);

    const environments = (await api(server, 'GET', `/api/workspaces/${workspace.id}/environments`)).body.environments as Json[];
    expect(environments.map((e) => [e.run_id, e.branch, e.status, e.path]).sort()).toEqual(
      [
        [first, `svc/${first}`, 'ended', worktree(first)],
        [second, `svc/${second}`, 'ended', worktree(second)],
      ].sort(),
    );

    expect((await api(server, 'DELETE', `/api/workflows/runs/${first}`)).status).toBe(200);
    expect(existsSync(worktree(first))).toBe(false);
    expect(git(dir, 'branch', '--list', '--format=%(refname:short)', 'svc/*')).toBe(`svc/${second}`);
    expect((await api(server, 'GET', `/api/workspaces/${workspace.id}/environments`)).body.environments).toHaveLength(1);

    // A run on an unknown workspace is refused at once.
    expect(await api(server, 'POST', '/api/workflows/touch/run', { message: 'x', workspaceId: 'ws_gone', cwd: dir })).toMatchObject({
      status: 404,
      body: { error: 'workspace_not_found' },
    });

    // Deleting the workspace removes the rest, and leaves the user's directory alone.
    expect((await api(server, 'DELETE', `/api/workspaces/${workspace.id}`)).body).toEqual({ deleted: true, id: workspace.id });
    expect(existsSync(join(server.home, 'workspaces', workspace.id))).toBe(false);
    expect(git(dir, 'branch', '--list', '--format=%(refname:short)', 'svc/*')).toBe('');
    expect(existsSync(join(dir, 'README.md'))).toBe(true);
  });
});

describe('resume on a workspace', () => {
  it('continues a failed run in the same worktree', async () => {
    const server = await startServer({ socket: true });
    const marker = join(await tempDir('svc-ws-marker-'), 'second-time');
    const { workspace } = await registeredProject(server, {}, [
      {
        name: 'flaky',
        description: 'fails the first time',
        nodes: [
          { id: 'prepare', bash: 'printf kept > prepared.txt' },
          {
            id: 'flaky',
            bash: `[ -e ${JSON.stringify(marker)} ] || { touch ${JSON.stringify(marker)}; exit 1; }; cat prepared.txt; pwd`,
            depends_on: ['prepare'],
          },
        ],
      },
    ]);
    const id = await startRun(server, 'flaky', { message: '', workspaceId: workspace.id });
    const failed = await waitForRun(server, id);
    expect(failed.status).toBe('failed');
    expect((await api(server, 'POST', `/api/workflows/runs/${id}/resume`)).status).toBe(200);
    const again = await api(server, 'POST', '/api/workflows/flaky/run', { message: '', conversationId: failed.conversationId, workspaceId: workspace.id });
    expect(again.body.runId).toBe(id);
    const resumed = await waitForRun(server, id, (run) => run.status === 'completed' || (run.status === 'failed' && run.finishedAt !== failed.finishedAt));
    expect(resumed.status).toBe('completed');
    expect(resumed.cwd).toBe(failed.cwd);
    expect(resumed.nodes.flaky.output).toBe(`kept${failed.cwd}`);
  });
});

describe('env values and the env-leak gate', () => {
  const WORKFLOWS = [
    {
      name: 'uses-env',
      description: 'a bash node that checks the workspace env value',
      nodes: [{ id: 'check', bash: '[ "$DEPLOY_TOKEN" = "$EXPECTED" ] && echo matches' }],
    },
    { name: 'asks-agent', description: 'one agent node', nodes: [{ id: 'ask', prompt: 'Say hello [fake:reply=hello]' }] },
  ];

  it('passes env values to nodes but never shows them, and blocks agents on agent keys until consent', async () => {
    const agentLog = join(await tempDir('svc-ws-agentlog-'), 'agent.jsonl');
    const server = await startServer({ socket: true });
    const { workspace } = await registeredProject(server, { '.env': 'export ANTHROPIC_API_KEY="sk-ant-not-real"\n' }, WORKFLOWS);
    expect(workspace.env_scan).toMatchObject({ status: 'keys_found', files: ['.env'], keys: ['ANTHROPIC_API_KEY'] });

    const set = await api(server, 'PUT', `/api/workspaces/${workspace.id}/env`, { DEPLOY_TOKEN: CANARY, EXPECTED: CANARY, DROP_ME: 'x' });
    expect(set.status).toBe(200);
    expect(set.body.env_keys).toEqual(['DEPLOY_TOKEN', 'DROP_ME', 'EXPECTED']);
    // The fake agent records its invocations where this (workspace) env var says: proof the value reaches agents.
    await api(server, 'PUT', `/api/workspaces/${workspace.id}/env`, { FAKE_CLAUDE_LOG: agentLog });
    expect((await api(server, 'PUT', `/api/workspaces/${workspace.id}/env`, { 'not-a-name': 'x' })).status).toBe(400);
    expect((await api(server, 'DELETE', `/api/workspaces/${workspace.id}/env/DROP_ME`)).body.env_keys).toEqual(['DEPLOY_TOKEN', 'EXPECTED', 'FAKE_CLAUDE_LOG']);
    expect((await api(server, 'DELETE', `/api/workspaces/${workspace.id}/env/DROP_ME`)).body.error).toBe('env_key_not_found');

    // Bash nodes are not gated, and see the value.
    const bashRun = await waitForRun(server, await startRun(server, 'uses-env', { message: '', workspaceId: workspace.id }));
    expect(bashRun.status).toBe('completed');
    expect(bashRun.nodes.check.output).toBe('matches');

    // Agent nodes are blocked while the .env holds an agent key and no consent is on record.
    const blocked = await waitForRun(server, await startRun(server, 'asks-agent', { message: '', workspaceId: workspace.id }));
    expect(blocked.status).toBe('failed');
    expect(blocked.nodes.ask.error).toContain('ANTHROPIC_API_KEY');
    expect(blocked.nodes.ask.error).toContain(`svc workspace consent ${workspace.id} --allow`);
    expect((await getRun(server, blocked.id)).events.find((e: Json) => e.type === 'node_failed')).toMatchObject({ code: 'env_leak_blocked' });
    expect(existsSync(agentLog)).toBe(false);

    const granted = await api(server, 'PATCH', `/api/workspaces/${workspace.id}`, { allowEnvKeys: true });
    expect(granted.body.allow_env_keys).toBe(true);
    const allowed = await waitForRun(server, await startRun(server, 'asks-agent', { message: '', workspaceId: workspace.id }));
    expect(allowed.status).toBe('completed');
    const invocation = readJsonLines(agentLog)[0]!;
    expect(invocation.cwd).toBe(allowed.cwd);
    expect(invocation.envKeys).toEqual(expect.arrayContaining(['DEPLOY_TOKEN', 'EXPECTED']));

    await api(server, 'PATCH', `/api/workspaces/${workspace.id}`, { allowEnvKeys: false });
    const blockedAgain = await waitForRun(server, await startRun(server, 'asks-agent', { message: '', workspaceId: workspace.id }));
    expect(blockedAgain.status).toBe('failed');

    const audit = readLog(server.home).filter((entry) => String(entry.event).startsWith('env_leak_consent'));
    expect(audit).toEqual([
      expect.objectContaining({
        level: 'warn',
        event: 'env_leak_consent_granted',
        workspaceId: workspace.id,
        files: ['.env'],
        keys: ['ANTHROPIC_API_KEY'],
        scanStatus: 'keys_found',
        actor: 'api',
      }),
      expect.objectContaining({ level: 'warn', event: 'env_leak_consent_revoked', workspaceId: workspace.id, actor: 'api' }),
    ]);

    // The value is in no answer and in no log line.
    const answers = await Promise.all([
      api(server, 'GET', '/api/workspaces'),
      api(server, 'GET', `/api/workspaces/${workspace.id}`),
      api(server, 'GET', `/api/workspaces/${workspace.id}/environments`),
      api(server, 'GET', '/api/config'),
      api(server, 'GET', `/api/workflows/runs/${bashRun.id}`),
      api(server, 'GET', '/api/workflows/runs'),
    ]);
    for (const answer of answers) expect(JSON.stringify(answer.body)).not.toContain(CANARY);
    expect(readFileSync(join(server.home, 'logs', 'svc.log'), 'utf8')).not.toContain(CANARY);
  });
});

describe('a clone that would hang', () => {
  it('is stopped at SVC_GIT_TIMEOUT_MS and answers clone_failed, leaving nothing behind', async () => {
    // A server that accepts the connection and never says a word: git (TLS) would wait forever.
    const { createServer } = await import('node:net');
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      const server = await startServer({ socket: true, env: { SVC_GIT_TIMEOUT_MS: '1500' } });
      const started = Date.now();
      const answer = await api(server, 'POST', '/api/workspaces', { url: `https://127.0.0.1:${port}/acme/repo.git` });
      expect(answer).toMatchObject({ status: 400, body: { error: 'clone_failed' } });
      expect(answer.body.message).toContain('did not finish within');
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(listDir(join(server.home, 'workspaces'))).toEqual([]);
    } finally {
      silent.close();
    }
  });
});
