// `svc workspace …` as a user types it: against a running server, and with none (the same routes
// in process on the store).
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupAll, readLog, startServer, tempDir, writeWorkflows } from '../helpers/runs.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { git, makeBareRepository, makeRepository } from '../helpers/git.js';

afterEach(cleanupAll);

async function project(files: Record<string, string> = {}) {
  const dir = join(await tempDir('svc-cli-ws-'), 'proj');
  await mkdir(dir);
  makeRepository(dir, { 'README.md': 'x\n', ...files });
  return dir;
}

describe('svc workspace', () => {
  it('adds, lists, shows, sets env, consents, runs in a worktree, cleans up and removes — through a server', async () => {
    const server = await startServer({ socket: true });
    const env = { SVC_HOME: server.home };
    const cli = (...args: string[]) => runSvcInProcess(['--url', server.url, ...args], env);
    const dir = await project({ '.env': 'OPENAI_API_KEY=sk-not-real\n' });
    await writeWorkflows(dir, [{ name: 'where', description: 'prints the branch', nodes: [{ id: 'b', bash: 'git rev-parse --abbrev-ref HEAD' }] }]);

    const added = await cli('workspace', 'add', dir, '--json');
    expect(added.code, added.stderr).toBe(0);
    const workspace = JSON.parse(added.stdout);
    expect(workspace).toMatchObject({ source: 'path', path: dir, env_scan: { keys: ['OPENAI_API_KEY'] } });
    expect((await cli('workspace', 'add', dir)).code).toBe(1);

    const listed = await cli('workspace', 'list');
    expect(listed.stdout).toContain(workspace.id);
    const shown = await cli('workspace', 'show', workspace.id);
    expect(shown.stdout).toMatch(/agents allowed\s+no: blocked/);
    expect((await cli('workspace', 'show', 'ws_missing')).code).toBe(1);

    const set = await cli('workspace', 'env', 'set', workspace.id, 'TOKEN=abc=def', 'OTHER=1');
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).not.toContain('abc');
    expect((await cli('workspace', 'env', 'set', workspace.id, 'NOEQUALS')).code).toBe(2);
    expect((await cli('workspace', 'env', 'unset', workspace.id, 'OTHER')).code).toBe(0);
    expect(JSON.parse((await cli('workspace', 'show', workspace.id, '--json')).stdout).env_keys).toEqual(['TOKEN']);

    expect((await cli('workspace', 'consent', workspace.id)).code).toBe(2);
    const consent = await cli('workspace', 'consent', workspace.id, '--allow');
    expect(consent.code, consent.stderr).toBe(0);
    expect(readLog(server.home).find((e) => e.event === 'env_leak_consent_granted')).toMatchObject({ workspaceId: workspace.id, actor: 'cli' });

    const run = await cli('run', 'where', '--workspace', workspace.id, '--cwd', dir, '--json');
    expect(run.code, run.stderr).toBe(0);
    const runView = JSON.parse(run.stdout);
    expect(runView.nodes.b.output).toBe(`svc/${runView.id}`);
    const envs = await cli('workspace', 'envs', workspace.id, '--json');
    expect(JSON.parse(envs.stdout).environments).toEqual([expect.objectContaining({ run_id: runView.id, status: 'ended' })]);

    expect((await cli('workspace', 'cleanup', '--older-than', 'soon')).code).toBe(2);
    // Time must pass for `--older-than 1s`: clean-up ages by the wall clock, which the server offers no way to inject.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const cleaned = await cli('workspace', 'cleanup', '--older-than', '1s', '--json');
    expect(cleaned.code, cleaned.stderr).toBe(0);
    expect(JSON.parse(cleaned.stdout).removed).toEqual([expect.objectContaining({ run_id: runView.id })]);
    expect(existsSync(runView.cwd)).toBe(false);

    // No terminal to confirm on: --yes is required.
    expect((await cli('workspace', 'rm', workspace.id)).code).toBe(2);
    const removed = await cli('workspace', 'rm', workspace.id, '--yes');
    expect(removed.code, removed.stderr).toBe(0);
    expect(existsSync(join(dir, 'README.md'))).toBe(true);
    expect(JSON.parse((await cli('workspace', 'list', '--json')).stdout)).toEqual({ workspaces: [], total: 0 });
  });

  it('cleanup --merged says what it removed and what it kept and why; show prints the worktrees on disk', async () => {
    const server = await startServer({ socket: true });
    const cli = (...args: string[]) => runSvcInProcess(['--url', server.url, ...args], { SVC_HOME: server.home });
    const dir = await project();
    await writeWorkflows(dir, [
      { name: 'land', nodes: [{ id: 'w', bash: 'printf a > landed.txt' }] },
      { name: 'keep', nodes: [{ id: 'w', bash: 'printf b > kept.txt' }] },
    ]);
    const workspace = JSON.parse((await cli('workspace', 'add', dir, '--json')).stdout);
    const run = async (workflow: string) => JSON.parse((await cli('run', workflow, '--workspace', workspace.id, '--cwd', dir, '--json')).stdout);
    const landed = await run('land');
    const kept = await run('keep');
    git(dir, 'merge', '-q', '--no-edit', `svc/${landed.id}`);

    const shown = await cli('workspace', 'show', workspace.id);
    expect(shown.stdout).toMatch(/worktrees\s+2 on this server, \d+\.\d KiB/);
    expect(JSON.parse((await cli('workspace', 'show', workspace.id, '--json')).stdout).disk).toEqual({ worktrees: 2, bytes: expect.any(Number) });

    expect((await cli('workspace', 'cleanup', '--force')).code).toBe(2);
    const cleaned = await cli('workspace', 'cleanup', '--merged');
    expect(cleaned.code, cleaned.stderr).toBe(0);
    expect(cleaned.stdout).toContain('Removed 1 worktree(s):');
    expect(cleaned.stdout).toContain(landed.id);
    expect(cleaned.stdout).toMatch(
      new RegExp(
        `Kept 1 worktree\\(s\\):[\\s\\S]*${kept.id}\\s+svc/${kept.id}\\s+1 commit\\(s\\) on svc/${kept.id} whose changes are not in main; kept \\(--force removes it\\)`,
      ),
    );
    expect(existsSync(landed.cwd)).toBe(false);
    expect(existsSync(kept.cwd)).toBe(true);

    const forced = await cli('workspace', 'cleanup', '--merged', '--force', '--json');
    expect(forced.code, forced.stderr).toBe(0);
    expect(JSON.parse(forced.stdout)).toEqual({ removed: [expect.objectContaining({ run_id: kept.id })], kept: [], elsewhere: [], pool: [] });
    expect(existsSync(kept.cwd)).toBe(false);
    expect((await cli('workspace', 'show', workspace.id)).stdout).toMatch(/worktrees\s+0 on this server, 0 B/);
  });

  it('works on the store with no server running, cloning a file:// URL', async () => {
    const home = await tempDir('svc-cli-ws-home-');
    const env = { SVC_HOME: home, PORT: '1' };
    const bare = makeBareRepository(await tempDir('svc-cli-ws-bare-'), 'lib');
    const added = await runSvcInProcess(['workspace', 'add', `file://${bare}`, '--json'], env);
    expect(added.code, added.stderr).toBe(0);
    const workspace = JSON.parse(added.stdout);
    expect(workspace).toMatchObject({ name: 'lib', source: 'clone' });
    expect(existsSync(join(workspace.path, 'README.md'))).toBe(true);
    const listed = await runSvcInProcess(['workspace', 'list', '--json'], env);
    expect(JSON.parse(listed.stdout).workspaces.map((w: { id: string }) => w.id)).toEqual([workspace.id]);
    expect((await runSvcInProcess(['workspace', 'rm', workspace.id, '--yes'], env)).code).toBe(0);
    expect(existsSync(join(home, 'workspaces', workspace.id))).toBe(false);
  });
});
