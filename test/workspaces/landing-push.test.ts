// Push and pull request of a run's branch, against real git: a cloned workspace pushing to its bare
// file:// origin, a push that fails (its URL's credentials never echoed), and `gh pr create` through
// a stand-in gh that records its argv — or no gh at all.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupAll, getRun, startRun, startServer, tempDir, waitForRun, writeWorkflows, type Json } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { git, makeRepository } from '../helpers/git.js';

let server: TestServer;
let ghDir: string;

/**
 * A stand-in gh: records the argv and working directory of `gh pr create`, then prints a URL — or
 * fails as the file `mode` beside it says. Anything else (following the pull request opened: `gh pr
 * view`) fails and records nothing.
 */
const FAKE_GH = `#!/bin/sh
dir=$(dirname "$0")
if [ "$1 $2" != "pr create" ]; then echo 'not this stand-in' >&2; exit 1; fi
pwd > "$dir/cwd"
for arg in "$@"; do printf '%s\\0' "$arg"; done > "$dir/argv"
mode=$(cat "$dir/mode" 2>/dev/null)
if [ "$mode" = "logged-out" ]; then echo 'To get started with GitHub CLI, please run:  gh auth login' >&2; exit 4; fi
if [ "$mode" = "fail" ]; then echo 'pull request create failed: GraphQL: No commits between main and svc/x' >&2; exit 1; fi
echo 'Creating pull request for svc/x into main in me/widgets'
echo 'https://github.com/me/widgets/pull/7'
`;

beforeAll(async () => {
  ghDir = await tempDir('svc-fake-gh-');
  writeFileSync(join(ghDir, 'gh'), FAKE_GH);
  chmodSync(join(ghDir, 'gh'), 0o755);
  server = await startServer({ env: { SVC_GH_BIN: join(ghDir, 'gh') } });
});

afterAll(cleanupAll);

let made = 0;
/** A workspace cloned from a bare file:// repository, and a finished run on it that added feature.txt. */
async function clonedRun(target = server): Promise<{ bare: string; workspace: Json; run: Json }> {
  const name = `grow-${(made += 1)}`;
  const parent = await tempDir('svc-push-');
  const work = join(parent, 'seed');
  mkdirSync(work);
  makeRepository(work, { 'README.md': '# widgets\n' });
  await writeWorkflows(work, [{ name, nodes: [{ id: 'grow', bash: "printf 'grown\\n' > feature.txt && echo 'Added feature.txt'" }] }]);
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'workflows');
  const bare = join(parent, 'widgets.git');
  git(parent, 'clone', '-q', '--bare', work, bare);
  const workspace = (await api(target, 'POST', '/api/workspaces', { url: `file://${bare}` })).body;
  expect(workspace.source).toBe('clone');
  const run = await waitForRun(target, await startRun(target, name, { message: 'Grow the widgets', workspaceId: workspace.id }));
  expect(run.status).toBe('completed');
  return { bare, workspace, run };
}

const post = (runId: string, op: string, body?: Json, target = server) => api(target, 'POST', `/api/workflows/runs/${runId}/${op}`, body);

describe('push', () => {
  it("pushes svc/<runId> of a cloned workspace to its bare file:// origin; a merge lands in svc's clone", async () => {
    const { bare, workspace, run } = await clonedRun();
    const answer = await post(run.id, 'push');
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toEqual({ remote: 'origin', branch: `svc/${run.id}` });
    expect(git(bare, 'rev-parse', `refs/heads/svc/${run.id}`)).toBe(run.headCommit);
    const bareMain = git(bare, 'rev-parse', 'main');
    const merged = await post(run.id, 'merge');
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    expect(git(workspace.path, 'rev-parse', 'main')).toBe(merged.body.commit);
    // Landing in the clone pushes nothing by itself.
    expect(git(bare, 'rev-parse', 'main')).toBe(bareMain);
  });

  it("answers 409 push_failed with git's message, never echoing the credentials of a URL", async () => {
    const { run } = await clonedRun();
    const answer = await post(run.id, 'push', { remote: 'https://svc-user:s3cret-token@127.0.0.1:9/nowhere.git' });
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe('push_failed');
    expect(answer.body.message).toContain('https://127.0.0.1:9/nowhere.git');
    expect(JSON.stringify(answer.body)).not.toMatch(/s3cret-token|svc-user/);
    const unknown = await post(run.id, 'push', { remote: 'upstream' });
    expect(unknown.body).toMatchObject({ error: 'push_failed', details: { remote: 'upstream', branch: `svc/${run.id}` } });
    expect((await post(run.id, 'push', { remote: '--mirror' })).status).toBe(400);
  });
});

describe('pull request', () => {
  it('pushes, then runs gh pr create in the worktree with the run-derived title and body; records the URL', async () => {
    const { bare, run } = await clonedRun();
    writeFileSync(join(ghDir, 'mode'), 'ok');
    const answer = await post(run.id, 'pr', { draft: true });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toEqual({ url: 'https://github.com/me/widgets/pull/7' });
    expect(git(bare, 'rev-parse', `refs/heads/svc/${run.id}`)).toBe(run.headCommit);
    const argv = readFileSync(join(ghDir, 'argv'), 'utf8').split('\0').slice(0, -1);
    expect(argv.slice(0, 5)).toEqual(['pr', 'create', `--head=svc/${run.id}`, '--base=main', '--title=Grow the widgets']);
    expect(argv[5]).toMatch(/^--body=Added feature\.txt\n\n---\nMade by svc run /);
    expect(argv[5]).toContain(`svc run ${run.id}: workflow ${run.workflow}; nodes grow completed; no agent cost recorded.`);
    expect(argv[5]).not.toMatch(/https?:/);
    expect(argv[6]).toBe('--draft');
    expect(argv).toHaveLength(7);
    expect(readFileSync(join(ghDir, 'cwd'), 'utf8').trim()).toBe(run.cwd);
    expect((await getRun(server, run.id)).pullRequest).toEqual({ url: 'https://github.com/me/widgets/pull/7', base: 'main', at: expect.any(String) });
  });

  it('gh logged out answers gh_unavailable saying how; gh failing answers pr_failed with its message', async () => {
    const { run } = await clonedRun();
    writeFileSync(join(ghDir, 'mode'), 'logged-out');
    const loggedOut = await post(run.id, 'pr', { title: 'T', body: 'B' });
    expect(loggedOut.status).toBe(409);
    expect(loggedOut.body.error).toBe('gh_unavailable');
    expect(loggedOut.body.message).toContain('gh auth login');
    writeFileSync(join(ghDir, 'mode'), 'fail');
    const failed = await post(run.id, 'pr', { title: 'T', body: 'B' });
    expect(failed.body).toMatchObject({ error: 'pr_failed', message: expect.stringContaining('No commits between main and svc/x') });
    expect((await getRun(server, run.id)).pullRequest).toBeUndefined();
  });

  it('no gh installed: 409 gh_unavailable naming what to install', async () => {
    const other = await startServer({ env: { SVC_GH_BIN: join(ghDir, 'no-such-gh') } });
    const { run } = await clonedRun(other);
    const answer = await post(run.id, 'pr', undefined, other);
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe('gh_unavailable');
    expect(answer.body.message).toContain('https://cli.github.com');
  });
});
