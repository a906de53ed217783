// Deleting a workspace while runs use it: refused while a run goes on, races between starts, env
// writes and deletion leave nothing behind and never answer 500, and a run whose worktree was
// cleaned up is not resumed in a fresh one.
import { afterEach, describe, expect, it } from 'vitest';
import { api, cleanupAll, startRun, startServer, waitForRun } from '../helpers/runs.js';
import { git } from '../helpers/git.js';
import { gitProject, registerWorkspace, svcBranches } from '../helpers/registered-project.js';

afterEach(cleanupAll);

describe('deletion, runs and races', () => {
  const SLOW = [{ name: 'slow', description: 'writes, waits, reads', nodes: [{ id: 'work', bash: 'echo data > out.txt; sleep 2; cat out.txt' }] }];

  it('a workspace with a run still going cannot be deleted (409), and can be once the run ended', async () => {
    const server = await startServer();
    const dir = await gitProject(SLOW);
    const workspace = await registerWorkspace(server, dir);
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
    const dir = await gitProject([{ name: 'quick', description: 'q', nodes: [{ id: 'a', bash: 'true' }] }]);
    for (let round = 0; round < 4; round++) {
      const workspace = await registerWorkspace(server, dir);
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
      const workspace = await registerWorkspace(server, await gitProject());
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
    const dir = await gitProject([{ name: 'fails', description: 'f', nodes: [{ id: 'a', bash: 'exit 1' }] }]);
    const workspace = await registerWorkspace(server, dir);
    const id = await startRun(server, 'fails', { message: '', workspaceId: workspace.id });
    const failed = await waitForRun(server, id);
    // Time must pass for `olderThan: '1s'`: clean-up ages by the wall clock, which the server offers no way to inject.
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
