import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statusOf } from '../../src/shared/error-answer.js';
import type { DomainError } from '../../src/shared/errors.js';
import { createLogger } from '../../src/shared/logger.js';
import { openFileStore, type FileStore } from '../../src/store/index.js';
import { openWorkspaceRepositories } from '../../src/workspaces/repository.js';
import { localCoordination } from '../../src/coordination/local.js';
import { WorkspaceService } from '../../src/workspaces/service.js';
import { git, makeBareRepository, makeRepository, treeDigest } from '../helpers/git.js';

let dir: string;
let home: string;
let store: FileStore;
let service: WorkspaceService;
const finished = new Map<string, string | null>();

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-ws-'));
  home = join(dir, 'home');
  const logger = createLogger({ level: 'debug', file: join(home, 'logs', 'svc.log') });
  store = await openFileStore({ home, logger, lock: 'server' });
  finished.clear();
  service = new WorkspaceService({
    repositories: await openWorkspaceRepositories(store),
    logger,
    home,
    env: process.env,
    runs: { finishedAt: async (runId) => (finished.has(runId) ? finished.get(runId) : undefined) },
    homes: localCoordination().homes,
  });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (error: DomainError) => `${statusOf(error.code)} ${error.code}`,
  );

describe('registering workspaces', () => {
  it('clones a file:// URL into $SVC_HOME/workspaces/<id>/source', async () => {
    const bare = makeBareRepository(dir, 'widgets', { 'README.md': 'hello\n' });
    const workspace = await service.register({ url: `file://${bare}` });
    expect(workspace).toMatchObject({ name: 'widgets', source: 'clone', url: `file://${bare}`, default_branch: 'main', allow_env_keys: false, env_keys: [] });
    expect(workspace.path).toBe(join(home, 'workspaces', workspace.id, 'source'));
    expect(readFileSync(join(workspace.path, 'README.md'), 'utf8')).toBe('hello\n');
    expect(await codeOf(service.register({ url: `file://${bare}/` }))).toBe('409 workspace_exists');
  });

  it("answers clone_failed with git's message and leaves no half-made directory", async () => {
    const error = await service.register({ url: `file://${dir}/missing.git` }).catch((e: Error & { code: string }) => e);
    expect((error as { code: string }).code).toBe('clone_failed');
    expect((error as Error).message).toMatch(/does not appear to be a git repository|not found|No such/i);
    expect(existsSync(join(home, 'workspaces')) ? await readdir(join(home, 'workspaces')) : []).toEqual([]);
  });

  it('registers an existing directory by path, once', async () => {
    const project = join(dir, 'project');
    await mkdir(project);
    makeRepository(project);
    const workspace = await service.register({ path: project });
    expect(workspace).toMatchObject({ name: 'project', source: 'path', path: project, default_branch: 'main' });
    expect(await codeOf(service.register({ path: `${project}/.` }))).toBe('409 workspace_exists');
  });

  it.each([
    [{}, '400 invalid_request'],
    [{ url: 'https://example.com/x.git', path: '/tmp' }, '400 invalid_request'],
    [{ path: 'relative/dir' }, '400 invalid_request'],
    [{ path: '/definitely/not/here' }, '400 invalid_request'],
    [{ path: '-rf' }, '400 invalid_request'],
    [{ url: 'http://example.com/x.git' }, '400 invalid_request'],
    [{ url: '--upload-pack=touch /tmp/x' }, '400 invalid_request'],
  ])('refuses %j', async (input, expected) => {
    expect(await codeOf(service.register(input))).toBe(expected);
  });

  it('refuses a file as path', async () => {
    await writeFile(join(dir, 'file.txt'), 'x');
    expect(await codeOf(service.register({ path: join(dir, 'file.txt') }))).toBe('400 invalid_request');
  });
});

describe('worktrees per run', () => {
  it('gives each run a worktree on svc/<runId>, reuses it on resume, and removes it with its branch', async () => {
    const project = join(dir, 'project');
    await mkdir(project);
    makeRepository(project, { 'a.txt': 'a\n' });
    const workspace = await service.register({ path: project });
    const one = await service.placeRun(workspace.id, 'run_one');
    const two = await service.placeRun(workspace.id, 'run_two');
    expect(one.cwd).toBe(join(home, 'workspaces', workspace.id, 'worktrees', 'run_one'));
    expect(git(one.cwd, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('svc/run_one');
    expect(git(two.cwd, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('svc/run_two');
    await writeFile(join(one.cwd, 'only-one.txt'), '1');
    expect(existsSync(join(two.cwd, 'only-one.txt'))).toBe(false);
    expect((await service.placeRun(workspace.id, 'run_one')).cwd).toBe(one.cwd);

    finished.set('run_one', null);
    finished.set('run_two', '2020-01-01T00:00:00.000Z');
    expect((await service.environments(workspace.id)).map((e) => [e.run_id, e.status, e.branch])).toEqual(
      expect.arrayContaining([
        ['run_one', 'active', 'svc/run_one'],
        ['run_two', 'ended', 'svc/run_two'],
      ]),
    );
    const { removed } = await service.cleanup({ before: new Date('2021-01-01T00:00:00Z') });
    expect(removed.map((e) => e.run_id)).toEqual(['run_two']);
    expect(existsSync(two.cwd)).toBe(false);
    expect(git(project, 'branch', '--list', '--format=%(refname:short)', 'svc/*')).toBe('svc/run_one');

    await service.removeRunEnvironment('run_one');
    expect(existsSync(one.cwd)).toBe(false);
    expect(git(project, 'branch', '--list', '--format=%(refname:short)', 'svc/*')).toBe('');
    expect(await service.environments(workspace.id)).toEqual([]);
  });

  it("deleting a path workspace leaves the user's directory byte-for-byte intact", async () => {
    const project = join(dir, 'project');
    await mkdir(project);
    makeRepository(project, { 'a.txt': 'a\n' });
    const before = treeDigest(project);
    const workspace = await service.register({ path: project });
    await service.placeRun(workspace.id, 'run_x');
    await service.delete(workspace.id);
    expect(treeDigest(project)).toBe(before);
    expect(existsSync(join(home, 'workspaces', workspace.id))).toBe(false);
    expect(await codeOf(service.get(workspace.id))).toBe('404 workspace_not_found');
  });

  it('deleting a cloned workspace removes our clone and its worktrees', async () => {
    const bare = makeBareRepository(dir, 'lib');
    const workspace = await service.register({ url: `file://${bare}` });
    const place = await service.placeRun(workspace.id, 'run_y');
    expect(existsSync(place.cwd)).toBe(true);
    await service.delete(workspace.id);
    expect(existsSync(join(home, 'workspaces', workspace.id))).toBe(false);
    expect(existsSync(bare)).toBe(true);
  });
});

describe('env values and the env-leak gate', () => {
  it('keeps env values out of every view; blocks agents on agent keys until consent, with audit entries', async () => {
    const project = join(dir, 'project');
    await mkdir(project);
    makeRepository(project);
    await writeFile(join(project, '.env'), 'ANTHROPIC_API_KEY=sk-canary-value\n');
    const workspace = await service.register({ path: project });
    expect(workspace.env_scan).toEqual({ status: 'keys_found', files: ['.env'], keys: ['ANTHROPIC_API_KEY'], unreadable: [] });

    const withEnv = await service.setEnv(workspace.id, { DEPLOY_TOKEN: 'canary-secret-1', OTHER: 'x' });
    expect(withEnv.env_keys).toEqual(['DEPLOY_TOKEN', 'OTHER']);
    expect(JSON.stringify(withEnv)).not.toContain('canary-secret-1');
    expect(await service.envValues(workspace.id)).toEqual({ DEPLOY_TOKEN: 'canary-secret-1', OTHER: 'x' });
    expect(await codeOf(service.setEnv(workspace.id, { 'bad-name': 'x' }))).toBe('400 invalid_request');
    expect((await service.unsetEnv(workspace.id, 'OTHER')).env_keys).toEqual(['DEPLOY_TOKEN']);
    expect(await codeOf(service.unsetEnv(workspace.id, 'OTHER'))).toBe('404 env_key_not_found');

    const blocked = await service.assertAgentAllowed(workspace.id).catch((e: Error) => e);
    expect(blocked).toMatchObject({ code: 'env_leak_blocked' });
    expect(statusOf((blocked as DomainError).code)).toBe(422);
    expect((blocked as Error).message).toContain('.env');
    expect((blocked as Error).message).toContain('ANTHROPIC_API_KEY');
    expect((blocked as Error).message).toContain(`svc workspace consent ${workspace.id} --allow`);

    await service.setConsent(workspace.id, true, 'cli');
    await expect(service.assertAgentAllowed(workspace.id)).resolves.toBeUndefined();
    await service.setConsent(workspace.id, false, 'api');
    expect(await codeOf(service.assertAgentAllowed(workspace.id))).toBe('422 env_leak_blocked');

    const log = readFileSync(join(home, 'logs', 'svc.log'), 'utf8');
    const entries = log
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const audit = entries.filter((e) => String(e.event).startsWith('env_leak_consent'));
    expect(audit).toEqual([
      expect.objectContaining({
        level: 'warn',
        event: 'env_leak_consent_granted',
        workspaceId: workspace.id,
        path: project,
        files: ['.env'],
        keys: ['ANTHROPIC_API_KEY'],
        scanStatus: 'keys_found',
        actor: 'cli',
      }),
      expect.objectContaining({ level: 'warn', event: 'env_leak_consent_revoked', workspaceId: workspace.id, actor: 'api' }),
    ]);
    expect(log).not.toContain('canary');
  });
});
