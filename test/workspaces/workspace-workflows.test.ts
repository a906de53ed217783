// Two repositories with overlapping workflow names (issue 32, items 1 and 2), through the real
// server and real git: each workspace's `fix-add` is its own, listed with its workspace; a name means
// the request's workspace first (named, or the one whose checkout holds cwd); only a clash inside one
// folder is an error; and a run a person starts inside a checkout goes to a worktree of it unless
// asked to run in place.
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { api, cleanupAll, getRun, startRun, startServer, tempDir, waitForRun, type Json } from '../helpers/runs.js';
import { git } from '../helpers/git.js';
import { registerProject } from '../helpers/registered-project.js';
import type { TestServer } from '../helpers/server.js';

afterEach(cleanupAll);

/** A `fix-add` that says which repository defined it, and leaves a file where it ran. */
const fixAdd = (who: string) => ({
  name: 'fix-add',
  description: `fix-add of ${who}`,
  nodes: [{ id: 'add', bash: `echo "${who}" > added.txt; echo "${who}"` }],
});

/** Two registered repositories, each with its own `fix-add` and a subdirectory to stand in. */
async function twoRepositories(server: TestServer) {
  const alpha = await registerProject(server, { workflows: [fixAdd('alpha')], extra: { 'src/index.js': '1\n' } });
  const beta = await registerProject(server, { workflows: [fixAdd('beta')], extra: { 'src/index.js': '2\n' } });
  return { alpha, beta };
}

const listing = async (server: TestServer, query = '') => {
  const { status, body } = await api(server, 'GET', `/api/workflows${query}`);
  expect(status, JSON.stringify(body)).toBe(200);
  return body as { workflows: Json[]; errors?: Json[] };
};

describe('workflows of two workspaces', () => {
  it('the same name in two workspaces is valid, each listed with its workspace', async () => {
    const server = await startServer();
    const { alpha, beta } = await twoRepositories(server);
    const unrelated = await tempDir('svc-elsewhere-');
    const body = await listing(server, `?cwd=${encodeURIComponent(unrelated)}`);
    expect(body).not.toHaveProperty('errors');
    expect(body.workflows.filter((w) => w.name === 'fix-add').map((w) => [w.workspaceId, w.workspaceName, w.filename])).toEqual(
      [
        [alpha.workspace.id, 'project', join(alpha.dir, '.svc/workflows/fix-add.yaml')],
        [beta.workspace.id, 'project', join(beta.dir, '.svc/workflows/fix-add.yaml')],
      ].sort((a, b) => a[0]!.localeCompare(b[0]!)),
    );
    // From inside beta's checkout (a subdirectory), beta's comes first: the one `fix-add` means there.
    const fromBeta = await listing(server, `?cwd=${encodeURIComponent(join(beta.dir, 'src'))}`);
    expect(fromBeta.workflows.filter((w) => w.name === 'fix-add').map((w) => w.workspaceId)).toEqual([beta.workspace.id, alpha.workspace.id]);
    // --workspace names one: its own first, whatever the cwd.
    const named = await listing(server, `?cwd=${encodeURIComponent(join(beta.dir, 'src'))}&workspaceId=${alpha.workspace.id}`);
    expect(named.workflows.filter((w) => w.name === 'fix-add').map((w) => w.workspaceId)).toEqual([alpha.workspace.id, beta.workspace.id]);
  });

  it('a name means the workspace named, else the one holding cwd; from elsewhere two candidates are 404 naming both', async () => {
    const server = await startServer();
    const { alpha, beta } = await twoRepositories(server);
    const one = async (query: string) => api(server, 'GET', `/api/workflows/fix-add?${query}`);
    expect((await one(`workspaceId=${alpha.workspace.id}`)).body).toMatchObject({
      workspaceId: alpha.workspace.id,
      workflow: { description: 'fix-add of alpha' },
    });
    expect((await one(`cwd=${encodeURIComponent(join(beta.dir, 'src'))}`)).body).toMatchObject({
      workspaceId: beta.workspace.id,
      workflow: { description: 'fix-add of beta' },
    });
    const unrelated = await tempDir('svc-elsewhere-');
    const ambiguous = await one(`cwd=${encodeURIComponent(unrelated)}`);
    expect(ambiguous.status).toBe(404);
    expect(ambiguous.body.error).toBe('workflow_not_found');
    expect(ambiguous.body.message).toContain(alpha.workspace.id);
    expect(ambiguous.body.message).toContain(beta.workspace.id);
    expect(ambiguous.body.message).toContain('--workspace');
    expect((await one('workspaceId=ws_nope')).body.error).toBe('workspace_not_found');
  });

  it('a run with workspaceId, or started inside a checkout, uses that workspace’s definition, in a worktree; the checkout is untouched', async () => {
    const server = await startServer();
    const { alpha, beta } = await twoRepositories(server);
    const unrelated = await tempDir('svc-elsewhere-');

    const onAlpha = await waitForRun(server, await startRun(server, 'fix-add', { message: '', cwd: unrelated, workspaceId: alpha.workspace.id }));
    expect(onAlpha).toMatchObject({ status: 'completed', workspaceId: alpha.workspace.id, branch: `svc/${onAlpha.id}` });
    expect(onAlpha.nodes.add.output).toBe('alpha');

    // No workspace named: the run started inside beta's checkout is beta's, in a worktree of it.
    const started = await api(server, 'POST', '/api/workflows/fix-add/run', { message: '', cwd: join(beta.dir, 'src'), trigger: 'cli' });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ workspaceId: beta.workspace.id, branch: `svc/${started.body.runId}` });
    expect(started.body.cwd).toBe(join(server.home, 'workspaces', beta.workspace.id, 'worktrees', started.body.runId));
    const onBeta = await waitForRun(server, started.body.runId);
    expect(onBeta).toMatchObject({ status: 'completed', workspaceId: beta.workspace.id, cwd: started.body.cwd });
    expect(onBeta.nodes.add.output).toBe('beta');
    expect(readFileSync(join(onBeta.cwd, 'added.txt'), 'utf8')).toBe('beta\n');
    for (const dir of [alpha.dir, beta.dir]) {
      expect(existsSync(join(dir, 'added.txt'))).toBe(false);
      expect(git(dir, 'status', '--porcelain')).toBe('');
    }
  });

  it('inPlace runs in the checkout itself, no worktree; inPlace with workspaceId is 400', async () => {
    const server = await startServer();
    const { beta } = await twoRepositories(server);
    const started = await api(server, 'POST', '/api/workflows/fix-add/run', { message: '', cwd: beta.dir, inPlace: true, trigger: 'cli' });
    expect(started).toMatchObject({ status: 202, body: { workspaceId: null, cwd: beta.dir, branch: null } });
    const run = await waitForRun(server, started.body.runId);
    expect(run).toMatchObject({ status: 'completed', workspaceId: null, cwd: beta.dir });
    expect(run.nodes.add.output).toBe('beta');
    expect(readFileSync(join(beta.dir, 'added.txt'), 'utf8')).toBe('beta\n');

    const both = await api(server, 'POST', '/api/workflows/fix-add/run', { message: '', cwd: beta.dir, inPlace: true, workspaceId: beta.workspace.id });
    expect(both.status).toBe(400);
    expect(both.body.error).toBe('invalid_request');
  });

  it('a clash inside one workspace is still an error, names both files, and no other workspace stands in for it', async () => {
    const server = await startServer();
    const { alpha, beta } = await twoRepositories(server);
    const yml = join(alpha.dir, '.svc/workflows/fix-add.yml');
    await writeFile(yml, stringify(fixAdd('alpha again')));
    const yaml = join(alpha.dir, '.svc/workflows/fix-add.yaml');
    const body = await listing(server, `?cwd=${encodeURIComponent(alpha.dir)}`);
    expect(body.errors).toEqual([
      { filename: yaml, error: expect.stringContaining(`workflow 'fix-add' is defined more than once (also in ${yml}); keep one of them`) },
      { filename: yml, error: expect.stringContaining(`workflow 'fix-add' is defined more than once (also in ${yaml}); keep one of them`) },
    ]);
    // beta's own is still valid and listed; alpha's is not.
    expect(body.workflows.filter((w) => w.name === 'fix-add').map((w) => w.workspaceId)).toEqual([beta.workspace.id]);
    // From alpha's checkout the name is alpha's, broken: beta's is not run in its place.
    const fromAlpha = await api(server, 'POST', '/api/workflows/fix-add/run', { message: '', cwd: alpha.dir });
    expect(fromAlpha.status).toBe(404);
    expect(fromAlpha.body.message).toContain(yaml);
  });
});

describe("the dashboard's start", () => {
  it('the data it uses: each workflow names its workspace, and a start on it goes to a worktree', async () => {
    const server = await startServer();
    const { alpha } = await twoRepositories(server);
    // The dashboard lists from the server's directory, opens a workflow by name and workspace, and
    // preselects that workspace in its form (src/web/views/workflows.tsx).
    const body = await listing(server);
    const entry = body.workflows.find((w) => w.name === 'fix-add' && w.workspaceId === alpha.workspace.id)!;
    const doc = await api(server, 'GET', `/api/workflows/fix-add?workspaceId=${entry.workspaceId}`);
    expect(doc.body).toMatchObject({ workspaceId: alpha.workspace.id, filename: entry.filename });
    const runId = await startRun(server, 'fix-add', { message: 'from the form', workspaceId: doc.body.workspaceId });
    const run = await waitForRun(server, runId);
    expect(run).toMatchObject({ status: 'completed', workspaceId: alpha.workspace.id, branch: `svc/${runId}` });
    expect(run.nodes.add.output).toBe('alpha');
    expect(existsSync(join(alpha.dir, 'added.txt'))).toBe(false);
    expect((await getRun(server, runId)).cwd).not.toBe(alpha.dir);
  });
});
