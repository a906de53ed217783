// Follow-on runs (docs/decisions.md, "Follow-on runs"): `fromRunId` on the start body and
// `svc run --from`: the new run's worktree branches from the earlier run's head commit, so the
// earlier run's changes are there; refused with 400s saying why for a run without a worktree or on
// another workspace, 404 for an unknown one.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupAll, projectWithWorkflows, startRun, startServer, waitForRun, type Json, type Workflow } from '../helpers/runs.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import type { TestServer } from '../helpers/server.js';
import { git, useEmptyGitConfig } from '../helpers/git.js';
import { registerProject } from '../helpers/registered-project.js';

afterEach(cleanupAll);

beforeAll(async () => {
  await useEmptyGitConfig();
});

const WORKFLOWS: Workflow[] = [
  { name: 'first', nodes: [{ id: 'write', bash: "printf 'from the first run\\n' > first.txt" }] },
  { name: 'second', nodes: [{ id: 'read', bash: 'cat first.txt && printf more > second.txt' }] },
];

const registeredProject = (server: TestServer, workflows = WORKFLOWS) => registerProject(server, { files: { 'README.md': '# follow\n' }, workflows });

describe('follow-on runs', () => {
  it("branches the new run's worktree from the earlier run's head, and records fromRunId", async () => {
    const server = await startServer({ socket: true });
    const { dir, workspace } = await registeredProject(server);
    const first = await waitForRun(server, await startRun(server, 'first', { message: '', workspaceId: workspace.id }));
    expect(first.status, JSON.stringify(first.nodes)).toBe('completed');

    // A prefix, as other commands take; the workspace is the earlier run's.
    const second = await waitForRun(server, await startRun(server, 'second', { message: '', fromRunId: first.id.slice(0, 12) }));
    expect(second.status, JSON.stringify(second.nodes)).toBe('completed');
    expect(second).toMatchObject({ fromRunId: first.id, workspaceId: workspace.id, baseCommit: first.headCommit, branch: `svc/${second.id}` });
    expect(second.nodes.read.output).toBe('from the first run');
    expect(readFileSync(join(second.cwd, 'first.txt'), 'utf8')).toBe('from the first run\n');
    // The earlier run's branch is an ancestor of the new one; main is untouched.
    git(dir, 'merge-base', '--is-ancestor', `svc/${first.id}`, `svc/${second.id}`);
    expect(git(dir, 'show', 'main:README.md')).toBe('# follow');
    expect(existsSync(join(dir, 'first.txt'))).toBe(false);
    // A run started without --from has no link; the earlier run's follow-ons are a query away.
    expect(first.fromRunId).toBeNull();
    const followOns = await api(server, 'GET', `/api/workflows/runs?fromRunId=${first.id}`);
    expect(followOns.status).toBe(200);
    expect(followOns.body.runs.map((run: Json) => run.id)).toEqual([second.id]);
    expect((await api(server, 'GET', `/api/workflows/runs?fromRunId=${second.id}`)).body).toMatchObject({ runs: [], total: 0 });
  });

  it('refuses a run without a worktree, one on another workspace, and an unknown run', async () => {
    const server = await startServer({ socket: true });
    const { workspace } = await registeredProject(server);
    // Another workspace, without workflows of the same names (a name in two workspaces is ambiguous).
    const other = await registeredProject(server, [{ name: 'other', nodes: [{ id: 'a', bash: 'true' }] }]);
    const first = await waitForRun(server, await startRun(server, 'first', { message: '', workspaceId: workspace.id }));
    // A run in a plain directory, not on a workspace.
    const plainDir = await projectWithWorkflows([{ name: 'plain', nodes: [{ id: 'a', bash: 'true' }] }]);
    const plain = await waitForRun(server, await startRun(server, 'plain', { message: '', cwd: plainDir }));
    expect(plain.status).toBe('completed');

    const without = await api(server, 'POST', '/api/workflows/second/run', { message: '', fromRunId: plain.id });
    expect(without.status).toBe(400);
    expect(without.body).toMatchObject({ error: 'from_run_without_worktree' });
    expect(without.body.message).toContain(`Run ${plain.id}`);
    expect(without.body.message).toContain('not in a worktree');

    const elsewhere = await api(server, 'POST', '/api/workflows/second/run', { message: '', workspaceId: other.workspace.id, fromRunId: first.id });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body).toMatchObject({ error: 'from_run_other_workspace' });
    expect(elsewhere.body.message).toContain(`workspace ${workspace.id}, not ${other.workspace.id}`);

    const unknown = await api(server, 'POST', '/api/workflows/second/run', { message: '', fromRunId: 'run_nope_000000' });
    expect(unknown).toMatchObject({ status: 404, body: { error: 'run_not_found' } });
    // Nothing was started by the refusals.
    const { body } = await api(server, 'GET', '/api/workflows/runs?workflow=second');
    expect(body.total).toBe(0);
  });

  it('svc run --from <prefix> through the built binary', async () => {
    const server = await startServer({ socket: true });
    const { workspace } = await registeredProject(server);
    const first = await waitForRun(server, await startRun(server, 'first', { message: '', workspaceId: workspace.id }));
    const result = await runSvcInProcess(['--url', server.url, '--json', 'run', 'second', '--from', first.id.slice(0, 14)], { SVC_HOME: server.home });
    expect(result.code, result.stderr).toBe(0);
    const run = JSON.parse(result.stdout) as Json;
    expect(run).toMatchObject({ status: 'completed', fromRunId: first.id, workspaceId: workspace.id });
    expect(run.nodes.read.output).toBe('from the first run');

    const shown = await runSvcInProcess(['--url', server.url, 'runs', 'show', run.id], { SVC_HOME: server.home });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`follows:  ${first.id}`);

    const refused = await runSvcInProcess(['--url', server.url, 'run', 'second', '--from', 'run_nope_000000'], { SVC_HOME: server.home });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('run_nope_000000');
  });
});
