// A commit per node, and the diff (docs/decisions.md, "A commit per node, and the diff"): runs on a workspace
// (a real git repository registered by path) whose bash nodes edit, add, rename and delete files;
// each node's change is a commit on svc/<runId>, and GET …/diff shows the run's or one node's.
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupAll, startRun, startServer, tempDir, waitForRun, waitForStatus, writeWorkflows, type Json, type Workflow } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { git, useEmptyGitConfig } from '../helpers/git.js';
import { registerProject, runOn } from '../helpers/registered-project.js';

afterEach(cleanupAll);

// No identity from this machine's global or system git config: the repository's own, or svc's.
beforeAll(async () => {
  await useEmptyGitConfig();
});

const registeredProject = (server: TestServer, files: Record<string, string>, workflows: Workflow[]) => registerProject(server, { files, workflows });

/** The commits of the run's branch after `base`, oldest first: subject, author, Svc-Run trailer. */
function commitsAfter(dir: string, base: string, branch: string) {
  const out = git(dir, 'log', '--reverse', '--format=%H%x09%s%x09%an <%ae>%x09%(trailers:key=Svc-Run,valueonly,separator=)', `${base}..${branch}`);
  return out ? out.split('\n').map((line) => line.split('\t')) : [];
}

describe('a commit per node', () => {
  const EDITS: Workflow = {
    name: 'edits',
    nodes: [
      { id: 'edit', bash: "printf 'changed\\n' >> README.md" },
      { id: 'add', bash: "mkdir -p src && printf 'a\\nb\\n' > src/new.txt && printf 'noise' > build.log", depends_on: ['edit'] },
      { id: 'remove', bash: 'rm old.txt && mv keep.txt kept.txt', depends_on: ['add'] },
      // Changes nothing; what it prints proves it started from a clean tree.
      { id: 'look', bash: 'git status --porcelain; echo clean', depends_on: ['remove'] },
    ],
  };
  const FILES = { 'README.md': '# project\n', 'old.txt': 'old\n', 'keep.txt': 'a file that is renamed\nwith two lines\n', '.gitignore': '*.log\n' };

  it('commits what each node changed on svc/<runId>, as svc, and records commits, changes and the range', async () => {
    const server = await startServer();
    const { dir, workspace } = await registeredProject(server, FILES, [EDITS]);
    const main = git(dir, 'rev-parse', 'main');
    const run = await runOn(server, 'edits', workspace.id);
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    const branch = `svc/${run.id}`;
    expect(run).toMatchObject({ branch, baseCommit: main, headCommit: git(dir, 'rev-parse', branch) });

    const commits = commitsAfter(dir, main, branch);
    expect(commits.map(([, subject, author, trailer]) => [subject, author, trailer])).toEqual([
      ['edits: edit', 'svc <svc@localhost>', run.id],
      ['edits: add', 'svc <svc@localhost>', run.id],
      ['edits: remove', 'svc <svc@localhost>', run.id],
    ]);
    const [edit, add, remove] = commits.map(([sha]) => sha);
    expect(run.nodes.edit).toMatchObject({ baseCommit: main, commit: edit, changes: { files: 1, insertions: 1, deletions: 0 } });
    expect(run.nodes.add).toMatchObject({ baseCommit: edit, commit: add, changes: { files: 1, insertions: 2, deletions: 0 } });
    expect(run.nodes.remove).toMatchObject({ baseCommit: add, commit: remove, changes: { files: 2, insertions: 0, deletions: 1 } });
    expect(run.nodes.look).toMatchObject({ baseCommit: remove, commit: null, changes: { files: 0, insertions: 0, deletions: 0 }, output: 'clean' });
    // .gitignore is respected; the ignored file stays in the worktree only.
    expect(git(dir, 'ls-tree', '-r', '--name-only', branch)).not.toContain('build.log');
    expect(existsSync(join(run.cwd, 'build.log'))).toBe(true);
    // The user's own branch and checkout are untouched.
    expect(git(dir, 'rev-parse', 'main')).toBe(main);
    expect(git(dir, 'status', '--porcelain')).toBe('');

    const whole = await api(server, 'GET', `/api/workflows/runs/${run.id}/diff`);
    expect(whole.status).toBe(200);
    expect(whole.body).toMatchObject({ branch, base: main, head: remove, truncated: false });
    expect(whole.body.files).toEqual([
      { path: 'README.md', status: 'modified', insertions: 1, deletions: 0 },
      { path: 'kept.txt', oldPath: 'keep.txt', status: 'renamed', insertions: 0, deletions: 0 },
      { path: 'old.txt', status: 'deleted', insertions: 0, deletions: 1 },
      { path: 'src/new.txt', status: 'added', insertions: 2, deletions: 0 },
    ]);
    expect(whole.body.patch).toContain('+++ b/src/new.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n');
    expect(whole.body.patch).toContain('rename from keep.txt\nrename to kept.txt');
    // A short run id works as everywhere else.
    expect((await api(server, 'GET', `/api/workflows/runs/${run.id.slice(0, 12)}/diff`)).body.head).toBe(remove);

    const node = await api(server, 'GET', `/api/workflows/runs/${run.id}/diff?node=add`);
    expect(node.body).toMatchObject({ branch, base: edit, head: add, truncated: false });
    expect(node.body.files).toEqual([{ path: 'src/new.txt', status: 'added', insertions: 2, deletions: 0 }]);
    expect(node.body.patch).not.toContain('README.md');
    expect((await api(server, 'GET', `/api/workflows/runs/${run.id}/diff?node=look`)).body).toEqual({
      branch,
      base: remove,
      head: remove,
      files: [],
      patch: '',
      truncated: false,
    });

    expect(await api(server, 'GET', `/api/workflows/runs/${run.id}/diff?node=nope`)).toMatchObject({ status: 404, body: { error: 'node_not_found' } });
    expect(await api(server, 'GET', '/api/workflows/runs/run_nope_000000/diff')).toMatchObject({ status: 404, body: { error: 'run_not_found' } });
  });

  it("uses the repository's identity, keeps the agent's own commits and skips the repository's hooks", async () => {
    const server = await startServer();
    const { dir, workspace } = await registeredProject(server, { 'README.md': '# hooks\n' }, [
      {
        name: 'agentish',
        nodes: [
          {
            id: 'work',
            bash: "printf one > one.txt && git add one.txt && git -c user.name=Agent -c user.email=agent@example.com -c core.hooksPath=/dev/null commit -q -m 'agent commit' && printf two > two.txt",
          },
        ],
      },
    ]);
    git(dir, 'config', 'user.name', 'Repo Person');
    git(dir, 'config', 'user.email', 'repo@example.com');
    for (const name of ['pre-commit', 'prepare-commit-msg', 'commit-msg']) {
      const hook = join(dir, '.git', 'hooks', name);
      writeFileSync(hook, `#!/bin/sh\necho "${name} refuses" >&2\nexit 1\n`);
      chmodSync(hook, 0o755);
    }
    const main = git(dir, 'rev-parse', 'main');

    const run = await runOn(server, 'agentish', workspace.id);
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    const commits = commitsAfter(dir, main, `svc/${run.id}`);
    expect(commits.map(([, subject, author, trailer]) => [subject, author, trailer])).toEqual([
      ['agent commit', 'Agent <agent@example.com>', ''],
      ['agentish: work', 'Repo Person <repo@example.com>', run.id],
    ]);
    expect(run.nodes.work).toMatchObject({ baseCommit: main, commit: commits[1]![0], changes: { files: 2, insertions: 2, deletions: 0 } });
    expect((await api(server, 'GET', `/api/workflows/runs/${run.id}/diff?node=work`)).body.files.map((f: Json) => f.path)).toEqual(['one.txt', 'two.txt']);
  });

  it('commits parallel nodes one at a time, leaving everything committed and the tree clean', async () => {
    const server = await startServer();
    const writers = ['a', 'b', 'c', 'd'].map((name) => ({ id: name, bash: `for i in 1 2 3; do echo "$i" >> ${name}.txt; sleep 0.05; done` }));
    const { dir, workspace } = await registeredProject(server, { 'README.md': '# parallel\n' }, [
      { name: 'fan', nodes: [...writers, { id: 'join', bash: 'git status --porcelain; echo joined', depends_on: ['a', 'b', 'c', 'd'] }] },
    ]);
    const run = await runOn(server, 'fan', workspace.id);
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(run.nodes.join.output).toBe('joined');
    expect(git(dir, 'ls-tree', '--name-only', `svc/${run.id}`).split('\n')).toEqual(expect.arrayContaining(['a.txt', 'b.txt', 'c.txt', 'd.txt']));
    const subjects = commitsAfter(dir, run.baseCommit, `svc/${run.id}`).map(([, subject]) => subject);
    expect(subjects.length).toBeGreaterThanOrEqual(1);
    for (const subject of subjects) expect(subject).toMatch(/^fan: [abcd]$/);
  });

  it('records the range of agent nodes too', async () => {
    const server = await startServer();
    const { workspace } = await registeredProject(server, { 'README.md': '# agent\n' }, [
      {
        name: 'asks',
        nodes: [
          { id: 'write', bash: 'printf x > x.txt' },
          { id: 'ask', prompt: 'Say ok [fake:reply=ok]', depends_on: ['write'] },
        ],
      },
    ]);
    const run = await runOn(server, 'asks', workspace.id);
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(run.nodes.ask).toMatchObject({ output: 'ok', baseCommit: run.nodes.write.commit, commit: null, changes: { files: 0, insertions: 0, deletions: 0 } });
  });

  it('fails the node, saying why, when git refuses the commit', async () => {
    const server = await startServer();
    const { workspace } = await registeredProject(server, { 'README.md': '# locked\n' }, [
      // A lock on the worktree's index, as a crashed git would leave it.
      { name: 'locked', nodes: [{ id: 'lock', bash: 'printf x > x.txt && touch "$(git rev-parse --git-dir)/index.lock"' }] },
    ]);
    const run = await runOn(server, 'locked', workspace.id);
    expect(run.status).toBe('failed');
    expect(run.nodes.lock.error).toMatch(/^svc could not commit the node's changes on svc\/run_\S+: .*index\.lock/);
    expect(run.events.find((e: Json) => e.type === 'node_failed')).toMatchObject({ nodeId: 'lock', code: 'commit_failed' });
  });

  it('with commit: false, leaves the changes uncommitted', async () => {
    const server = await startServer();
    const { dir, workspace } = await registeredProject(server, { 'README.md': '# off\n' }, [
      { name: 'no-commits', commit: false, nodes: [{ id: 'write', bash: 'printf x > x.txt' }] },
    ]);
    const main = git(dir, 'rev-parse', 'main');
    const run = await runOn(server, 'no-commits', workspace.id);
    expect(run.status).toBe('completed');
    expect(git(dir, 'rev-parse', `svc/${run.id}`)).toBe(main);
    expect(run).toMatchObject({ branch: `svc/${run.id}`, baseCommit: main, headCommit: main });
    expect(run.nodes.write).toMatchObject({ baseCommit: main, commit: null });
    expect(git(run.cwd, 'status', '--porcelain')).toBe('?? x.txt');
    expect((await api(server, 'GET', `/api/workflows/runs/${run.id}/diff`)).body).toMatchObject({ files: [], patch: '' });
  });

  it('starts a gate from a clean tree with the diff ready, and goes on on the same branch after approval', async () => {
    const server = await startServer();
    const { dir, workspace } = await registeredProject(server, { 'README.md': '# gated\n' }, [
      {
        name: 'gated',
        nodes: [
          { id: 'write', bash: 'printf "feature\\n" > feature.txt' },
          { id: 'gate', approval: { message: 'Review with svc runs diff $RUN_ID' }, depends_on: ['write'] },
          { id: 'after', bash: 'git status --porcelain; git log --format=%s -n 1; printf more >> feature.txt', depends_on: ['gate'] },
        ],
      },
    ]);
    const id = await startRun(server, 'gated', { message: '', workspaceId: workspace.id });
    const paused = await waitForStatus(server, id, 'paused');
    expect(paused.events.find((e: Json) => e.type === 'run_paused').message).toBe(`Review with svc runs diff ${id}`);
    expect(git(paused.cwd, 'status', '--porcelain')).toBe('');
    const diff = await api(server, 'GET', `/api/workflows/runs/${id}/diff`);
    expect(diff.body.files).toEqual([{ path: 'feature.txt', status: 'added', insertions: 1, deletions: 0 }]);

    expect((await api(server, 'POST', `/api/workflows/runs/${id}/approve`, {})).status).toBe(200);
    const done = await waitForStatus(server, id, 'completed');
    expect(done.nodes.after.output).toBe('gated: write');
    expect(commitsAfter(dir, done.baseCommit, `svc/${id}`).map(([, subject]) => subject)).toEqual(['gated: write', 'gated: after']);
    expect(done.headCommit).toBe(git(dir, 'rev-parse', `svc/${id}`));
  });

  it('commits a failed node too, and a resumed run continues on the same branch', async () => {
    const server = await startServer();
    const marker = join(await tempDir('svc-commits-marker-'), 'second-time');
    const { dir, workspace } = await registeredProject(server, { 'README.md': '# resume\n' }, [
      {
        name: 'flaky',
        nodes: [
          { id: 'prepare', bash: 'printf kept > prepared.txt' },
          {
            id: 'flaky',
            bash: `echo attempt >> attempts.txt; [ -e ${JSON.stringify(marker)} ] || { touch ${JSON.stringify(marker)}; exit 1; }`,
            depends_on: ['prepare'],
          },
        ],
      },
    ]);
    const id = await startRun(server, 'flaky', { message: '', workspaceId: workspace.id });
    const failed = await waitForRun(server, id);
    expect(failed.status).toBe('failed');
    const firstFlaky = failed.nodes.flaky.commit;
    expect(firstFlaky).toBe(git(dir, 'rev-parse', `svc/${id}`));
    expect((await api(server, 'POST', `/api/workflows/runs/${id}/resume`)).status).toBe(200);
    const again = await api(server, 'POST', '/api/workflows/flaky/run', { message: '', conversationId: failed.conversationId, workspaceId: workspace.id });
    expect(again.body.runId).toBe(id);
    const resumed = await waitForRun(server, id, (run) => run.status === 'completed');
    expect(resumed).toMatchObject({ branch: failed.branch, baseCommit: failed.baseCommit, cwd: failed.cwd });
    expect(resumed.nodes.flaky).toMatchObject({ baseCommit: firstFlaky, changes: { files: 1, insertions: 1, deletions: 0 } });
    expect(commitsAfter(dir, failed.baseCommit, `svc/${id}`).map(([, subject]) => subject)).toEqual(['flaky: prepare', 'flaky: flaky', 'flaky: flaky']);
    expect(resumed.headCommit).toBe(git(dir, 'rev-parse', `svc/${id}`));
  });
});

describe('the diff', () => {
  it('cuts a patch past 1 MiB at a line end, and counts a binary file without lines', async () => {
    const server = await startServer();
    const { workspace } = await registeredProject(server, { 'README.md': '# big\n' }, [
      {
        name: 'big',
        nodes: [{ id: 'write', bash: "yes 'a line of text in a two mebibyte file' | head -n 52000 > big.txt && printf '\\0\\1\\2' > blob.bin" }],
      },
    ]);
    const run = await runOn(server, 'big', workspace.id);
    expect(run.status).toBe('completed');
    const { status, body } = await api(server, 'GET', `/api/workflows/runs/${run.id}/diff`);
    expect(status).toBe(200);
    expect(body.truncated).toBe(true);
    expect(Buffer.byteLength(body.patch)).toBeLessThanOrEqual(1024 * 1024);
    expect(Buffer.byteLength(body.patch)).toBeGreaterThan(1024 * 1024 - 100);
    expect(body.patch.endsWith('\n')).toBe(true);
    expect(body.files).toEqual([
      { path: 'big.txt', status: 'added', insertions: 52000, deletions: 0 },
      { path: 'blob.bin', status: 'added', insertions: 0, deletions: 0, binary: true },
    ]);
    expect(run.nodes.write.changes).toEqual({ files: 2, insertions: 52000, deletions: 0 });
  });

  it('answers 409 no_worktree for a run that had no worktree of its own', async () => {
    const server = await startServer();
    const dir = await tempDir('svc-commits-plain-');
    await writeWorkflows(dir, [{ name: 'plain', nodes: [{ id: 'a', bash: 'printf x > x.txt' }] }]);
    const run = await waitForRun(server, await startRun(server, 'plain', { message: '', cwd: dir }));
    expect(run).toMatchObject({ status: 'completed', branch: null, baseCommit: null, headCommit: null });
    expect(run.nodes.a.commit).toBeUndefined();
    const answer = await api(server, 'GET', `/api/workflows/runs/${run.id}/diff`);
    expect(answer).toMatchObject({ status: 409, body: { error: 'no_worktree' } });
  });

  it('answers 409 worktree_gone once clean-up removed the worktree and its branch', async () => {
    const server = await startServer();
    const { workspace } = await registeredProject(server, { 'README.md': '# gone\n' }, [{ name: 'gone', nodes: [{ id: 'a', bash: 'printf x > x.txt' }] }]);
    const run = await runOn(server, 'gone', workspace.id);
    expect((await api(server, 'GET', `/api/workflows/runs/${run.id}/diff`)).body.files).toHaveLength(1);
    // Time must pass for `olderThan: '1s'`: clean-up ages by the wall clock, which the server offers no way to inject.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await api(server, 'POST', '/api/workspaces/cleanup', { olderThan: '1s' })).body.removed).toHaveLength(1);
    expect(await api(server, 'GET', `/api/workflows/runs/${run.id}/diff`)).toMatchObject({ status: 409, body: { error: 'worktree_gone' } });
  });
});
