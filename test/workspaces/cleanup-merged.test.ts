// Clean-up by outcome (docs/decisions.md, "Clean-up by outcome"): runs on a real git repository registered by
// path, whose bash nodes commit to svc/<runId>; some of those branches are merged into main by git
// here (a merge, a squash), one is not, one has no commits, one run waits at a gate. `POST
// /api/workspaces/cleanup {merged}` removes exactly the merged ones, says what it kept and why, and
// `GET /api/workspaces/{id}` counts the worktrees left and their bytes as `du -sb` does.
import { execFileSync } from 'node:child_process';
import { existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { api, cleanupAll, startRun, startServer, waitForStatus, type Json, type Workflow } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { git } from '../helpers/git.js';
import { registerProject, runOn } from '../helpers/registered-project.js';

afterEach(cleanupAll);

const WORKFLOWS: Workflow[] = [
  { name: 'merged', nodes: [{ id: 'write', bash: 'printf "merged\\n" > merged.txt' }] },
  {
    name: 'squashed',
    nodes: [
      { id: 'write', bash: 'printf "one\\n" > squashed.txt' },
      { id: 'more', bash: 'printf "two\\n" >> squashed.txt', depends_on: ['write'] },
    ],
  },
  { name: 'unmerged', nodes: [{ id: 'write', bash: 'printf "not yet\\n" > unmerged.txt' }] },
  { name: 'nothing', nodes: [{ id: 'look', bash: 'git status --porcelain' }] },
  {
    name: 'gated',
    nodes: [
      { id: 'write', bash: 'printf "waiting\\n" > gated.txt' },
      { id: 'gate', approval: { message: 'look first' }, depends_on: ['write'] },
    ],
  },
];

const registeredProject = (server: TestServer) => registerProject(server, { workflows: WORKFLOWS });

const runCompleted = async (server: TestServer, workflow: string, workspaceId: string) => {
  const run = await runOn(server, workflow, workspaceId);
  expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
  return run as Json;
};

/** `du -sb` of each directory, summed: what `disk.bytes` must equal. */
const duBytes = (paths: string[]) => paths.reduce((sum, path) => sum + Number(execFileSync('du', ['-sb', path], { encoding: 'utf8' }).split('\t')[0]), 0);
const svcBranches = (dir: string) => git(dir, 'branch', '--list', '--format=%(refname:short)', 'svc/*').split('\n').filter(Boolean).sort();
const runIds = (list: Json[]) => list.map((e) => e.run_id).sort();

describe('cleanup --merged', () => {
  it('removes merged, squash-merged and commit-less runs, keeps an unmerged one until force, and never touches a paused run', async () => {
    const server = await startServer();
    const { dir, workspace } = await registeredProject(server);
    const merged = await runCompleted(server, 'merged', workspace.id);
    const squashed = await runCompleted(server, 'squashed', workspace.id);
    const unmerged = await runCompleted(server, 'unmerged', workspace.id);
    const nothing = await runCompleted(server, 'nothing', workspace.id);
    const gatedId = await startRun(server, 'gated', { message: '', workspaceId: workspace.id });
    const gated = (await waitForStatus(server, gatedId, 'paused')) as Json;
    expect(nothing.headCommit).toBe(nothing.baseCommit);

    git(dir, 'merge', '-q', '--no-edit', `svc/${merged.id}`);
    git(dir, 'merge', '-q', '--squash', `svc/${squashed.id}`);
    git(dir, 'commit', '-q', '-m', 'squashed');
    // A squash merge leaves the branch unmerged by ancestry: only its changes are in main.
    expect(() => git(dir, 'merge-base', '--is-ancestor', `svc/${squashed.id}`, 'main')).toThrow();

    // A symlink out of a worktree counts as itself, never as what it points at.
    symlinkSync('/usr', join(unmerged.cwd, 'usr-link'));
    const all = [merged, squashed, unmerged, nothing, gated];
    const shown = await api(server, 'GET', `/api/workspaces/${workspace.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.disk).toEqual({ worktrees: 5, bytes: duBytes(all.map((run) => run.cwd)) });

    expect(await api(server, 'POST', '/api/workspaces/cleanup', { force: true })).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect((await api(server, 'POST', '/api/workspaces/cleanup', { merged: 'yes' })).status).toBe(400);

    // Both flags: merged AND ended before the age. Nothing ended an hour ago.
    const young = await api(server, 'POST', '/api/workspaces/cleanup', { merged: true, olderThan: '1h' });
    expect(young.status, JSON.stringify(young.body)).toBe(200);
    expect(young.body.removed).toEqual([]);
    expect(young.body.kept.map((e: Json) => [e.run_id, e.reason]).sort()).toEqual(
      [
        [merged.id, 'too_recent'],
        [squashed.id, 'too_recent'],
        [unmerged.id, 'too_recent'],
        [nothing.id, 'too_recent'],
        [gated.id, 'active'],
      ].sort(),
    );

    const cleaned = await api(server, 'POST', '/api/workspaces/cleanup', { merged: true, workspaceId: workspace.id });
    expect(cleaned.status, JSON.stringify(cleaned.body)).toBe(200);
    expect(runIds(cleaned.body.removed)).toEqual([merged.id, squashed.id, nothing.id].sort());
    expect(cleaned.body.kept.map((e: Json) => [e.run_id, e.reason]).sort()).toEqual(
      [
        [unmerged.id, 'unmerged'],
        [gated.id, 'active'],
      ].sort(),
    );
    const kept = cleaned.body.kept.find((e: Json) => e.run_id === unmerged.id);
    expect(kept.message).toContain(`1 commit(s) on svc/${unmerged.id}`);
    expect(kept.message).toContain('--force');
    expect(cleaned.body.elsewhere).toEqual([]);
    for (const run of [merged, squashed, nothing]) expect(existsSync(run.cwd), run.id).toBe(false);
    expect(svcBranches(dir)).toEqual([`svc/${unmerged.id}`, `svc/${gated.id}`].sort());
    expect(existsSync(join(unmerged.cwd, 'unmerged.txt'))).toBe(true);
    expect(git(gated.cwd, 'log', '-1', '--format=%s')).toBe('gated: write');
    expect((await api(server, 'GET', `/api/workspaces/${workspace.id}`)).body.disk).toEqual({ worktrees: 2, bytes: duBytes([unmerged.cwd, gated.cwd]) });

    const forced = await api(server, 'POST', '/api/workspaces/cleanup', { merged: true, force: true });
    expect(forced.status).toBe(200);
    expect(runIds(forced.body.removed)).toEqual([unmerged.id]);
    expect(forced.body.kept.map((e: Json) => [e.run_id, e.reason])).toEqual([[gated.id, 'active']]);
    expect(existsSync(unmerged.cwd)).toBe(false);
    expect(existsSync('/usr')).toBe(true);
    expect(svcBranches(dir)).toEqual([`svc/${gated.id}`]);
    expect((await api(server, 'GET', `/api/workspaces/${workspace.id}`)).body.disk).toEqual({ worktrees: 1, bytes: duBytes([gated.cwd]) });
    expect((await api(server, 'GET', `/api/workflows/runs/${gated.id}`)).body.status).toBe('paused');
  });
});
