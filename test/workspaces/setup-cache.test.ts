// The setup cache (docs/decisions.md, "Setup cache and pool"): `.svc/worktree.yaml`'s `cache:` keeps what the
// setup made (`paths`) keyed by the key files' contents, the script and the platform; a later
// worktree with the same key gets a copy instead of running the setup; a changed lockfile runs it
// again; no run can change another's copy; a failed setup caches nothing; `svc workspace cache`
// lists and clears entries.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { git, useEmptyGitConfig } from '../helpers/git.js';
import { registerProject, runOn } from '../helpers/registered-project.js';
import { api, cleanupAll, startServer, tempDir, type Json, type Workflow } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
let dir: string;
let workspaceId: string;
let invocations: string;

const setupRuns = () => (existsSync(invocations) ? readFileSync(invocations, 'utf8').split('\n').filter(Boolean).length : 0);

// A stand-in for `npm ci`: records each invocation, and "installs" a dependency whose version is the lockfile's.
const worktreeYaml = (log: string) =>
  [
    'setup: |',
    `  echo installing >> ${log}`,
    '  mkdir -p node_modules/dep/lib',
    '  cp package-lock.json node_modules/dep/VERSION',
    '  echo "module.exports = 1" > node_modules/dep/lib/index.js',
    'cache:',
    '  key: [package-lock.json]',
    '  paths: [node_modules]',
    '',
  ].join('\n');

const READ: Workflow = { name: 'read', nodes: [{ id: 'deps', bash: 'cat node_modules/dep/VERSION; cat node_modules/dep/lib/index.js' }] };
// A run that damages its own copy of the dependency tree.
const DAMAGE: Workflow = { name: 'damage', nodes: [{ id: 'break', bash: 'rm node_modules/dep/lib/index.js; echo broken > node_modules/dep/VERSION' }] };

beforeAll(async () => {
  await useEmptyGitConfig();
  invocations = join(await tempDir('svc-cache-log-'), 'setup.log');
  server = await startServer({ socket: true });
  const project = await registerProject(server, {
    files: { 'README.md': '# cache\n', 'package-lock.json': 'v1\n', '.gitignore': 'node_modules/\n' },
    workflows: [READ, DAMAGE],
    extra: { '.svc/worktree.yaml': worktreeYaml(invocations) },
  });
  dir = project.dir;
  workspaceId = project.workspace.id;
});
afterAll(cleanupAll);

describe('a setup with cache:', () => {
  let first: Json;
  it('runs on the first worktree of a key, and keeps its paths', async () => {
    first = await runOn(server, 'read', workspaceId);
    expect(first.status, JSON.stringify(first.error)).toBe('completed');
    expect(setupRuns()).toBe(1);
    expect(first.setup).toMatchObject({ status: 'completed', source: 'setup', cacheKey: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(first.setup.output).toMatch(/cached node_modules \(\d+ B, (cloned|copied)\) for the next worktree with this key/);
    expect(first.nodes.deps.output).toBe('v1\nmodule.exports = 1');
  });

  it('is not run again for the same lockfile: the next worktree gets the dependency tree from the cache', async () => {
    const second = await runOn(server, 'read', workspaceId);
    expect(second.status).toBe('completed');
    expect(setupRuns()).toBe(1);
    expect(second.setup).toMatchObject({ status: 'completed', source: 'cache', cacheKey: first.setup.cacheKey });
    expect(second.setup.output).toContain('restored node_modules from the setup cache');
    expect(second.nodes.deps.output).toBe('v1\nmodule.exports = 1');
    const shown = await runSvcInProcess(['runs', 'show', second.id], { SVC_URL: server.url });
    expect(shown.stdout).toMatch(/setup: {4}completed in .* \(from the setup cache\)/);
  });

  it("a run that damages its copy leaves the cache, and the next run's copy, whole", async () => {
    const damage = await runOn(server, 'damage', workspaceId);
    expect(damage.status).toBe('completed');
    expect(damage.setup.source).toBe('cache');
    const after = await runOn(server, 'read', workspaceId);
    expect(after.nodes.deps.output).toBe('v1\nmodule.exports = 1');
    expect(setupRuns()).toBe(1);
  });

  it('runs again when the lockfile changes, and keeps a second entry', async () => {
    writeFileSync(join(dir, 'package-lock.json'), 'v2\n');
    git(dir, 'commit', '-qam', 'bump the lockfile');
    const bumped = await runOn(server, 'read', workspaceId);
    expect(bumped.status).toBe('completed');
    expect(setupRuns()).toBe(2);
    expect(bumped.setup).toMatchObject({ source: 'setup' });
    expect(bumped.setup.cacheKey).not.toBe(first.setup.cacheKey);
    expect(bumped.nodes.deps.output).toBe('v2\nmodule.exports = 1');
  });

  it('`svc workspace cache` lists the entries with their hits, `--json` as the API answers, and `--clear` empties it', async () => {
    const { body } = await api(server, 'GET', `/api/workspaces/${workspaceId}/cache`);
    expect(body.entries).toHaveLength(2);
    const v1 = body.entries.find((entry: Json) => entry.key === first.setup.cacheKey);
    expect(v1).toMatchObject({ paths: ['node_modules'], hits: 3, sizeBytes: expect.any(Number) });
    expect(v1.sizeBytes).toBeGreaterThan(0);
    expect(body.totalBytes).toBe(body.entries.reduce((sum: number, entry: Json) => sum + entry.sizeBytes, 0));

    const listed = await runSvcInProcess(['workspace', 'cache', workspaceId], { SVC_URL: server.url });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(first.setup.cacheKey.slice(0, 12));
    expect(listed.stdout).toMatch(/SVC_CACHE_MAX_BYTES/);
    const json = await runSvcInProcess(['--json', 'workspace', 'cache', workspaceId], { SVC_URL: server.url });
    expect(
      JSON.parse(json.stdout)
        .entries.map((e: Json) => e.key)
        .sort(),
    ).toEqual(body.entries.map((e: Json) => e.key).sort());

    const cleared = await runSvcInProcess(['workspace', 'cache', workspaceId, '--clear'], { SVC_URL: server.url });
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(cleared.stdout).toMatch(/^Removed 2 cache entries \(/);
    expect((await api(server, 'GET', `/api/workspaces/${workspaceId}/cache`)).body.entries).toEqual([]);
    const again = await runOn(server, 'read', workspaceId);
    expect(again.setup.source).toBe('setup');
    expect(setupRuns()).toBe(3);
  });

  it('answers 404 for an unknown workspace', async () => {
    const missing = await api(server, 'GET', '/api/workspaces/ws_nope/cache');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('workspace_not_found');
  });
});

describe('a failing setup', () => {
  it('caches nothing: the next worktree runs the setup again', async () => {
    const own = await startServer({ socket: true });
    const log = join(await tempDir('svc-cache-fail-'), 'setup.log');
    const yaml = [
      'setup: |',
      `  echo installing >> ${log}`,
      '  mkdir -p node_modules/dep && echo half > node_modules/dep/VERSION',
      '  exit 1',
      'cache:',
      '  key: [package-lock.json]',
      '  paths: [node_modules]',
      '',
    ].join('\n');
    const { workspace } = await registerProject(own, {
      files: { 'README.md': '# fail\n', 'package-lock.json': 'v1\n', '.gitignore': 'node_modules/\n' },
      workflows: [READ],
      extra: { '.svc/worktree.yaml': yaml },
    });
    const failed = await runOn(own, 'read', workspace.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/^setup_failed: the setup exited with code 1/);
    expect((await api(own, 'GET', `/api/workspaces/${workspace.id}/cache`)).body.entries).toEqual([]);
    const retried = await runOn(own, 'read', workspace.id);
    expect(retried.setup).toMatchObject({ status: 'failed', source: 'setup' });
    expect(readFileSync(log, 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
  });
});

describe('SVC_CACHE_MAX_BYTES', () => {
  it('evicts the least recently used entries once the home holds more', async () => {
    // Each entry here is a few dozen bytes: room for one.
    const own = await startServer({ socket: true, env: { SVC_CACHE_MAX_BYTES: '40B' } });
    const log = join(await tempDir('svc-cache-evict-'), 'setup.log');
    const project = await registerProject(own, {
      files: { 'README.md': '# evict\n', 'package-lock.json': 'v1\n', '.gitignore': 'node_modules/\n' },
      workflows: [READ],
      extra: { '.svc/worktree.yaml': worktreeYaml(log) },
    });
    const older = await runOn(own, 'read', project.workspace.id);
    writeFileSync(join(project.dir, 'package-lock.json'), 'v2\n');
    git(project.dir, 'commit', '-qam', 'bump');
    const newer = await runOn(own, 'read', project.workspace.id);
    const { body } = await api(own, 'GET', `/api/workspaces/${project.workspace.id}/cache`);
    expect(body.entries.map((entry: Json) => entry.key)).toEqual([newer.setup.cacheKey]);
    expect(body.entries[0].key).not.toBe(older.setup.cacheKey);
    expect(body.maxBytes).toBe(40);
  });
});

describe('a repository whose cache path passes through a committed symlink', () => {
  it('neither caches from nor restores through it: the files it leads to stay untouched', async () => {
    const own = await startServer({ socket: true });
    const outside = await tempDir('svc-cache-outside-');
    mkdirSync(join(outside, 'secret'));
    writeFileSync(join(outside, 'secret', 'keep.txt'), "the user's\n");
    const yaml = [
      'setup: |',
      '  [ -L vendor ] || { mkdir -p vendor/secret; echo made > vendor/secret/x; }',
      'cache:',
      '  key: [package-lock.json]',
      '  paths: [vendor/secret]',
      '',
    ].join('\n');
    const project = await registerProject(own, {
      files: { 'README.md': '# hostile\n', 'package-lock.json': 'v1\n', '.gitignore': 'vendor/secret/\n' },
      workflows: [READ],
      extra: { '.svc/worktree.yaml': yaml },
    });
    // A plain folder first: its entry is stored.
    const first = await runOn(own, 'read', project.workspace.id);
    expect(first.setup.output).toMatch(/cached vendor\/secret/);
    // Then the folder becomes a link to the user's files, the key file unchanged: the same key.
    git(project.dir, 'rm', '-q', '-r', '--cached', '.gitignore');
    symlinkSync(outside, join(project.dir, 'vendor'));
    git(project.dir, 'add', 'vendor');
    git(project.dir, 'commit', '-qm', 'vendor is a link now');
    const second = await runOn(own, 'read', project.workspace.id);
    expect(second.setup.source).toBe('setup');
    expect(second.setup.output).toContain('the setup cache was not used: vendor/secret passes through a symlink (vendor)');
    expect(second.setup.output).toContain("the setup's output was not cached: vendor/secret passes through a symlink (vendor)");
    expect(readFileSync(join(outside, 'secret', 'keep.txt'), 'utf8')).toBe("the user's\n");
    expect(existsSync(join(outside, 'secret', 'x'))).toBe(false);
  });
});

describe('a cache path holding tracked files', () => {
  it("is neither stored nor restored: the repository's own files are never replaced by another commit's", async () => {
    const own = await startServer({ socket: true });
    const yaml = 'setup: echo built > lib/built.txt\ncache:\n  key: [package-lock.json]\n  paths: [lib]\n';
    const project = await registerProject(own, {
      files: { 'README.md': '# tracked\n', 'package-lock.json': 'v1\n' },
      workflows: [READ],
      extra: { '.svc/worktree.yaml': yaml, 'lib/source.js': 'exports.v = 1;\n' },
    });
    const run = await runOn(own, 'read', project.workspace.id);
    expect(run.setup.output).toContain("the setup's output was not cached: lib holds files git tracks");
    expect((await api(own, 'GET', `/api/workspaces/${project.workspace.id}/cache`)).body.entries).toEqual([]);
  });
});

describe('cache: in .svc/worktree.yaml', () => {
  it("refuses '.', .git and .svc as cache paths", async () => {
    const own = await startServer({ socket: true });
    const yaml = 'setup: echo hi\ncache:\n  key: [package-lock.json]\n  paths: [".", .git, a/.svc]\n';
    const { workspace } = await registerProject(own, { workflows: [READ], extra: { '.svc/worktree.yaml': yaml } });
    const run = await runOn(own, 'read', workspace.id);
    expect(run.status).toBe('failed');
    expect(run.error).toContain("cache.paths[0]: must name a path inside the repository, not '.'");
    expect(run.error).toContain('cache.paths[1]: must not be or go through .git or .svc');
    expect(run.error).toContain('cache.paths[2]: must not be or go through .git or .svc');
  });

  it('is refused with file:line:col when its paths leave the repository', async () => {
    const own = await startServer({ socket: true });
    const yaml = 'setup: echo hi\ncache:\n  key: [package-lock.json]\n  paths: [../outside]\n';
    const { workspace } = await registerProject(own, { workflows: [READ], extra: { '.svc/worktree.yaml': yaml } });
    const run = await runOn(own, 'read', workspace.id);
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/\.svc\/worktree\.yaml:4:11: cache\.paths\[0\]: must stay inside the repository \(no '\.\.'\)/);
  });
});
