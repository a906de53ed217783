// What an independent review of the workspaces feature found, each pinned by a test: folded path
// segments, deleting a workspace under a running run, races between runs and deletion, oversized
// .env files, registrations that would dodge the env-leak gate, credentials in clone URLs,
// out-of-range ages, resume after clean-up, prototype keys, and git variables inherited from a hook.
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/shared/logger.js';
import { openFileStore } from '../../src/store/index.js';
import { scanEnvFiles } from '../../src/workspaces/env-scan.js';
import { openWorkspaceRepositories } from '../../src/workspaces/repository.js';
import { localCoordination } from '../../src/coordination/local.js';
import { WorkspaceService } from '../../src/workspaces/service.js';
import { api, cleanupAll, onCleanup, startRun, startServer, tempDir, waitForRun, writeWorkflows, type Json } from '../helpers/runs.js';
import { runCli } from '../helpers/cli.js';
import type { TestServer } from '../helpers/server.js';
import { git, makeRepository } from '../helpers/git.js';

afterEach(cleanupAll);

async function project(workflows: Json[] = [], files: Record<string, string> = {}) {
  const dir = join(await tempDir('svc-hard-'), 'repo');
  await mkdir(dir);
  makeRepository(dir, { 'README.md': 'x\n', ...files });
  if (workflows.length) await writeWorkflows(dir, workflows as never);
  return dir;
}

async function register(server: TestServer, path: string): Promise<Json> {
  const { status, body } = await api(server, 'POST', '/api/workspaces', { path });
  expect(status, JSON.stringify(body)).toBe(201);
  return body;
}

const svcBranches = (dir: string) => git(dir, 'branch', '--list', '--format=%(refname:short)', 'svc/*');

describe('the API and CLI refuse what would reach another endpoint or leak', () => {
  it('`env unset <id> ..` is refused and deletes nothing; bad key names are 400, __proto__ is no key', async () => {
    const server = await startServer();
    const workspace = await register(server, await project());
    const unset = await runCli(['--url', server.url, 'workspace', 'env', 'unset', workspace.id, '..'], { env: { SVC_HOME: server.home } });
    expect(unset.code).toBe(1);
    expect(unset.stderr).toContain("'..' is not a valid id or name");
    expect((await api(server, 'GET', `/api/workspaces/${workspace.id}`)).status).toBe(200);
    expect((await api(server, 'DELETE', `/api/workspaces/${workspace.id}/env/__proto__`)).status).toBe(400);
    expect((await api(server, 'DELETE', `/api/workspaces/${workspace.id}/env/CONSTRUCTOR`)).body.error).toBe('env_key_not_found');
  });

  it('refuses credentials in a clone URL without repeating them', async () => {
    const server = await startServer();
    for (const url of ['https://user:SECRETTOKEN@127.0.0.1:1/x.git', 'https://SECRETTOKEN@127.0.0.1:1/x.git', 'ssh://git:SECRETTOKEN@127.0.0.1:1/x.git']) {
      const answer = await api(server, 'POST', '/api/workspaces', { url });
      expect(answer.status, url).toBe(400);
      expect(JSON.stringify(answer.body)).not.toContain('SECRETTOKEN');
    }
  });

  it('refuses a directory inside a repository (the gate would not see the root .env) and an out-of-range age', async () => {
    const server = await startServer();
    const dir = await project([], { '.env': 'ANTHROPIC_API_KEY=x\n' });
    await mkdir(join(dir, 'sub'));
    const answer = await api(server, 'POST', '/api/workspaces', { path: join(dir, 'sub') });
    expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(answer.body.message).toContain('register its top directory');
    expect((await api(server, 'POST', '/api/workspaces/cleanup', { olderThan: '99999999999d' })).status).toBe(400);
  });
});

describe('deletion, runs and races', () => {
  const SLOW = [{ name: 'slow', description: 'writes, waits, reads', nodes: [{ id: 'work', bash: 'echo data > out.txt; sleep 2; cat out.txt' }] }];

  it('a workspace with a run still going cannot be deleted (409), and can be once the run ended', async () => {
    const server = await startServer();
    const dir = await project(SLOW);
    const workspace = await register(server, dir);
    const id = await startRun(server, 'slow', { message: '', workspaceId: workspace.id });
    const refused = await api(server, 'DELETE', `/api/workspaces/${workspace.id}`);
    expect(refused).toMatchObject({ status: 409, body: { error: 'workspace_in_use', details: { runs: [id] } } });
    const run = await waitForRun(server, id);
    expect(run.status).toBe('completed');
    expect(run.nodes.work.output).toBe('data');
    expect((await api(server, 'DELETE', `/api/workspaces/${workspace.id}`)).status).toBe(200);
    expect(svcBranches(dir)).toBe('');
  });

  it('runs started while the workspace is being deleted leave no branch or worktree behind', async () => {
    const server = await startServer();
    const dir = await project([{ name: 'quick', description: 'q', nodes: [{ id: 'a', bash: 'true' }] }]);
    for (let round = 0; round < 4; round++) {
      const workspace = await register(server, dir);
      const [start] = await Promise.all([
        api(server, 'POST', '/api/workflows/quick/run', { message: '', workspaceId: workspace.id, cwd: dir }),
        api(server, 'DELETE', `/api/workspaces/${workspace.id}`),
      ]);
      if (start.status === 202) {
        await waitForRun(server, start.body.runId);
        await api(server, 'DELETE', `/api/workflows/runs/${start.body.runId}`);
        await api(server, 'DELETE', `/api/workspaces/${workspace.id}`);
      } else {
        expect(start.body.error).toBe('workspace_not_found');
      }
      expect(svcBranches(dir)).toBe('');
      expect(git(dir, 'worktree', 'list').split('\n')).toHaveLength(1);
    }
  });

  it('env writes racing a delete answer 200 or 404, never 500', async () => {
    const server = await startServer();
    for (let round = 0; round < 5; round++) {
      const workspace = await register(server, await project());
      const answers = await Promise.all([
        api(server, 'PUT', `/api/workspaces/${workspace.id}/env`, { A: '1' }),
        api(server, 'DELETE', `/api/workspaces/${workspace.id}`),
        api(server, 'PATCH', `/api/workspaces/${workspace.id}`, { allowEnvKeys: true }),
      ]);
      for (const answer of answers) expect([200, 404]).toContain(answer.status);
    }
  });

  it('a failed run whose worktree was cleaned up is not resumed in a fresh one (409 worktree_gone); the next start is a new run', async () => {
    const server = await startServer();
    const dir = await project([{ name: 'fails', description: 'f', nodes: [{ id: 'a', bash: 'exit 1' }] }]);
    const workspace = await register(server, dir);
    const id = await startRun(server, 'fails', { message: '', workspaceId: workspace.id });
    const failed = await waitForRun(server, id);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await api(server, 'POST', '/api/workspaces/cleanup', { olderThan: '1s' })).body.removed).toHaveLength(1);
    await api(server, 'POST', `/api/workflows/runs/${id}/resume`);
    const resumed = await api(server, 'POST', '/api/workflows/fails/run', { message: '', conversationId: failed.conversationId, workspaceId: workspace.id });
    expect(resumed).toMatchObject({ status: 409, body: { error: 'worktree_gone' } });
    const next = await api(server, 'POST', '/api/workflows/fails/run', { message: '', conversationId: failed.conversationId, workspaceId: workspace.id });
    expect(next.status).toBe(202);
    expect(next.body.runId).not.toBe(id);
    await waitForRun(server, next.body.runId);
  });
});

describe('the service on its own', () => {
  it('scans a 20 MiB .env without a newline as unreadable, without reading it whole', async () => {
    const dir = await tempDir('svc-hard-env-');
    await writeFile(join(dir, '.env.big'), Buffer.alloc(20 * 1024 * 1024, 0x41));
    await writeFile(join(dir, '.env'), 'OPENAI_API_KEY=sk\n');
    expect(await scanEnvFiles(dir)).toEqual({ status: 'keys_found', files: ['.env', '.env.big'], keys: ['OPENAI_API_KEY'], unreadable: ['.env.big'] });
  });

  it('ignores GIT_DIR and the like inherited from a git hook', async () => {
    const home = await tempDir('svc-hard-home-');
    const other = await project();
    const logger = createLogger({ level: 'error' });
    const store = await openFileStore({ home, logger, lock: 'server' });
    onCleanup(() => store.close());
    const service = new WorkspaceService({
      repositories: await openWorkspaceRepositories(store),
      logger,
      home,
      env: { ...process.env, GIT_DIR: join(other, '.git'), GIT_WORK_TREE: other },
      runs: { finishedAt: async () => undefined },
      homes: localCoordination().homes,
    });
    const plain = await tempDir('svc-hard-plain-');
    expect((await service.register({ path: plain })).default_branch).toBe('');
    expect(execFileSync('git', ['-C', other, 'worktree', 'list'], { encoding: 'utf8' }).trim().split('\n')).toHaveLength(1);
  });
});

describe('svc workspace env set', () => {
  it('takes a KEY alone with its value from stdin, so it never shows on the command line', async () => {
    const server = await startServer();
    const dir = await project([{ name: 'echo-token', description: 'e', nodes: [{ id: 'a', bash: '[ "$TOKEN" = "from-stdin-value" ] && echo ok' }] }]);
    const workspace = await register(server, dir);
    const set = await runCli(['--url', server.url, 'workspace', 'env', 'set', workspace.id, 'TOKEN'], {
      env: { SVC_HOME: server.home },
      input: 'from-stdin-value\n',
    });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).not.toContain('from-stdin-value');
    const run = await waitForRun(server, await startRun(server, 'echo-token', { message: '', workspaceId: workspace.id }));
    expect(run.nodes.a.output).toBe('ok');
  });
});
