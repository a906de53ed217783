// `svc runs diff` as a user types it: the patch plain when piped (so it applies with git apply),
// coloured on a terminal, `--stat`, `--node`, `--json`, and a clear refusal for a run without a
// worktree — against a running server, and once through the built binary.
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupAll, startRun, startServer, tempDir, waitForRun, writeWorkflows, type Json } from '../helpers/runs.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import type { TestServer } from '../helpers/server.js';
import { git, makeRepository } from '../helpers/git.js';

let server: TestServer;
let dir: string;
let run: Json;
let plainRun: Json;

const ANSI = /\x1b\[/;

beforeAll(async () => {
  server = await startServer({ socket: true });
  dir = join(await tempDir('svc-cli-diff-'), 'project');
  await mkdir(dir);
  makeRepository(dir, { 'README.md': '# demo\n', 'old.txt': 'old\n' });
  await writeWorkflows(dir, [
    {
      name: 'change',
      nodes: [
        { id: 'edit', bash: "printf 'more\\n' >> README.md && rm old.txt" },
        { id: 'add', bash: "printf 'new\\n' > new.txt", depends_on: ['edit'] },
      ],
    },
  ]);
  const workspace = (await api(server, 'POST', '/api/workspaces', { path: dir })).body;
  run = await waitForRun(server, await startRun(server, 'change', { message: '', workspaceId: workspace.id }));
  expect(run.status).toBe('completed');
  const outside = await tempDir('svc-cli-diff-plain-');
  await writeWorkflows(outside, [{ name: 'plain', nodes: [{ id: 'a', bash: 'true' }] }]);
  plainRun = await waitForRun(server, await startRun(server, 'plain', { message: '', cwd: outside }));
});

afterAll(cleanupAll);

const svc = (args: string[], options: { tty?: boolean } = {}) =>
  runSvcInProcess(['--url', server.url, 'runs', 'diff', ...args], { SVC_HOME: server.home }, { tty: options.tty, color: options.tty });

describe('svc runs diff', () => {
  it("prints git's patch when piped, which applies to the base commit", async () => {
    const result = await svc([run.id]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toMatch(ANSI);
    expect(result.stdout).toContain('--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-old\n');
    expect(result.stdout).toContain('+++ b/new.txt\n@@ -0,0 +1 @@\n+new\n');
    // The same change, applied to a fresh checkout of the base commit.
    const copy = join(await tempDir('svc-cli-diff-apply-'), 'copy');
    git(dir, 'worktree', 'add', '-q', '--detach', copy, run.baseCommit);
    await writeFile(join(copy, 'change.patch'), result.stdout);
    git(copy, 'apply', 'change.patch');
    expect(execFileSync('cat', ['README.md', 'new.txt'], { cwd: copy, encoding: 'utf8' })).toBe('# demo\nmore\nnew\n');
  });

  it('colours the patch on a terminal, with a header line', async () => {
    const result = await svc([run.id], { tty: true });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n')[0]).toContain(
      `svc/${run.id}  ${run.baseCommit.slice(0, 10)}..${run.headCommit.slice(0, 10)}  3 files changed, 2 insertions(+), 1 deletion(-)`,
    );
    expect(result.stdout).toContain('\x1b[32m+new\x1b[39m');
    expect(result.stdout).toContain('\x1b[31m-old\x1b[39m');
    expect(result.stdout).toMatch(/\x1b\[36m@@ -0,0 \+1 @@\x1b\[39m/);
  });

  it('--stat lists the files: tab-separated when piped, a table with a summary on a terminal', async () => {
    const piped = await svc([run.id, '--stat']);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toBe('README.md\tmodified\t1\t0\t\nnew.txt\tadded\t1\t0\t\nold.txt\tdeleted\t0\t1\t\n');
    const tty = await svc([run.id, '--stat'], { tty: true });
    const text = tty.stdout.replace(/\x1b\[[0-9;]*m/g, '');
    expect(text).toMatch(/FILE +STATUS +ADDED +REMOVED *\n/);
    expect(text).toMatch(/new\.txt +added +1 +0/);
    expect(tty.stdout).toContain('3 files changed, 2 insertions(+), 1 deletion(-)');
  });

  it("--node shows one node's commits; --json prints the API's document", async () => {
    const node = await svc([run.id.slice(0, 12), '--node', 'add', '--stat']);
    expect(node.stdout).toBe('new.txt\tadded\t1\t0\t\n');
    const json = await svc([run.id, '--node', 'edit', '--json']);
    expect(JSON.parse(json.stdout)).toEqual((await api(server, 'GET', `/api/workflows/runs/${run.id}/diff?node=edit`)).body);
    const unknown = await svc([run.id, '--node', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("has no node 'nope'");
  });

  it('refuses a run that had no worktree, saying why', async () => {
    const result = await svc([plainRun.id]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('has no worktree of its own');
  });

  it('svc runs show names the branch and its commits', async () => {
    const result = await runSvcInProcess(['--url', server.url, 'runs', 'show', run.id], { SVC_HOME: server.home });
    expect(result.stdout).toContain(`  branch:   svc/${run.id}   ${run.baseCommit.slice(0, 10)}..${run.headCommit.slice(0, 10)}\n`);
    const plain = await runSvcInProcess(['--url', server.url, 'runs', 'show', plainRun.id], { SVC_HOME: server.home });
    expect(plain.stdout).not.toContain('branch:');
  });

  it('works through the built binary', async () => {
    const result = await runSvcInProcess(['--url', server.url, 'runs', 'diff', run.id, '--stat'], { SVC_HOME: server.home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('new.txt\tadded\t1\t0\t\n');
  });
});
