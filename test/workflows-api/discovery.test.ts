// GET /api/workflows over a real server (issue 3): bundled and project workflows, the rules that
// decide which file wins, errors that never hide the good files, and the per-file parse cache.
import { readFile, rename, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLED_WORKFLOWS_DIR } from '../../src/catalog/index.js';
import { expectErrorResponse } from '../helpers/error-body.js';
import { useServerWithProjects } from '../helpers/project-server.js';
import { BUNDLED_NAMES, withCwd, workflowYaml } from '../helpers/workflow-project.js';

const { setup, start, server, newProject } = useServerWithProjects();

async function list(cwd: string) {
  const { status, body } = await server().json('GET', withCwd('/api/workflows', cwd));
  expect(status, JSON.stringify(body)).toBe(200);
  return body as { workflows: Array<Record<string, any>>; errors?: Array<{ filename: string; error: string }> };
}

describe('GET /api/workflows', () => {
  it('lists the bundled workflows when the project has none, without an errors member', async () => {
    const project = await setup({ bare: true });
    const body = await list(project.dir);
    expect(body.workflows.map((w) => w.name)).toEqual(BUNDLED_NAMES);
    expect(body).not.toHaveProperty('errors');
    const smoke = body.workflows.find((w) => w.name === 'smoke')!;
    expect(smoke).toEqual({
      name: 'smoke',
      description: expect.stringMatching(/no agent needed/),
      source: 'bundled',
      filename: join(BUNDLED_WORKFLOWS_DIR, 'smoke.yaml'),
      nodes: 4,
      triggers: [],
      workspaceId: null,
      workspaceName: null,
    });
  });

  it('reports a broken file with file:line:col and still lists every good one', async () => {
    const project = await setup();
    await project.write('alpha.yaml', workflowYaml('alpha'));
    const broken = await project.write(
      'broken.yaml',
      'name: broken\ndescription: x\nnodes:\n  - id: a\n    bash: ls\n    depends_on: [tset]\n  - id: test\n    bash: ls\n',
    );
    const garbage = await project.write('garbage.yml', 'name: [unclosed\n');
    await project.write('zeta.yml', workflowYaml('zeta'));
    await project.write('notes.txt', 'not a workflow');
    const body = await list(project.dir);
    expect(body.workflows.map((w) => w.name)).toEqual(['alpha', ...BUNDLED_NAMES, 'zeta'].sort());
    expect(body.errors).toEqual([
      { filename: broken, error: `${broken}:6:18: nodes[0].depends_on: unknown node 'tset' (did you mean 'test'?)` },
      { filename: garbage, error: expect.stringMatching(new RegExp(`^${garbage}:\\d+:\\d+: invalid YAML: `)) },
    ]);
    const alpha = body.workflows.find((w) => w.name === 'alpha')!;
    expect(alpha).toMatchObject({ source: 'project', filename: join(project.workflowsDir, 'alpha.yaml'), nodes: 2, workspaceId: null });
  });

  it('a project workflow overrides the bundled one of the same name', async () => {
    const project = await setup();
    const file = await project.write('review.yaml', workflowYaml('review', { description: 'our own review' }));
    const body = await list(project.dir);
    const reviews = body.workflows.filter((w) => w.name === 'review');
    expect(reviews).toEqual([expect.objectContaining({ source: 'project', filename: file, description: 'our own review' })]);
    expect(body.workflows.filter((w) => w.source === 'bundled').map((w) => w.name)).toEqual([
      'address-review',
      'assist',
      'fix-ci',
      'fix-issue',
      'rework',
      'smoke',
    ]);
  });

  it('a broken override hides the bundled workflow instead of silently falling back to it', async () => {
    const project = await setup();
    const file = await project.write('review.yaml', 'name: review\nnodes: []\n');
    const body = await list(project.dir);
    expect(body.workflows.map((w) => w.name)).not.toContain('review');
    expect(body.errors!.map((e) => e.filename)).toEqual([file, file]);
    expect(body.errors!.map((e) => e.error)).toEqual([
      `${file}:1:1: missing required field 'description'`,
      `${file}:2:8: nodes: a workflow needs at least one node`,
    ]);
  });

  it('two project files with one name are both errors, and neither is listed', async () => {
    const project = await setup();
    const yaml = await project.write('twice.yaml', workflowYaml('twice'));
    const yml = await project.write('twice.yml', workflowYaml('twice'));
    const body = await list(project.dir);
    expect(body.workflows.map((w) => w.name)).toEqual(BUNDLED_NAMES);
    expect(body.errors).toEqual([
      { filename: yaml, error: `${yaml}:1:7: name: workflow 'twice' is defined more than once (also in ${yml}); keep one of them` },
      { filename: yml, error: `${yml}:1:7: name: workflow 'twice' is defined more than once (also in ${yaml}); keep one of them` },
    ]);
  });

  it('the file stem must equal the name', async () => {
    const project = await setup();
    const file = await project.write('foo.yaml', workflowYaml('bar'));
    const body = await list(project.dir);
    expect(body.workflows.map((w) => w.name)).toEqual(BUNDLED_NAMES);
    expect(body.errors).toEqual([
      { filename: file, error: `${file}:1:7: name: 'bar' does not match the file name 'foo.yaml' (rename the file to bar.yaml, or set name: foo)` },
    ]);
  });

  it('reads workflows of every registered workspace, and skips malformed workspace records', async () => {
    const project = await setup();
    const workspace = await newProject();
    await project.write('here.yaml', workflowYaml('here'));
    const there = await workspace.write('there.yaml', workflowYaml('there'));
    const workspaces = await server().ctx.store.collection<{ id: string; path?: unknown }>('workspaces', 'single');
    await workspaces.put({ id: 'ws-1', path: workspace.dir });
    await workspaces.put({ id: 'ws-no-path' });
    await workspaces.put({ id: 'ws-relative', path: 'relative/dir' });
    await workspaces.put({ id: 'ws-gone', path: join(workspace.dir, 'missing') });
    const body = await list(project.dir);
    expect(body).not.toHaveProperty('errors');
    expect(body.workflows.find((w) => w.name === 'here')).toMatchObject({ source: 'project', workspaceId: null });
    expect(body.workflows.find((w) => w.name === 'there')).toMatchObject({ source: 'project', filename: there, workspaceId: 'ws-1' });
    // The same name in the cwd and a workspace is no clash: each is listed, the cwd's first (the one meant from here).
    const theirs = await workspace.write('here.yaml', workflowYaml('here'));
    const again = await list(project.dir);
    expect(again).not.toHaveProperty('errors');
    expect(again.workflows.filter((w) => w.name === 'here').map((w) => [w.filename, w.workspaceId])).toEqual([
      [join(project.workflowsDir, 'here.yaml'), null],
      [theirs, 'ws-1'],
    ]);
    // Listing from the workspace itself marks its files with its id.
    const fromWorkspace = await list(workspace.dir);
    expect(fromWorkspace.workflows.find((w) => w.name === 'there')).toMatchObject({ workspaceId: 'ws-1' });
  });

  it("defaults cwd to the server's working directory", async () => {
    const project = await newProject();
    await project.write('local.yaml', workflowYaml('local'));
    const previous = process.cwd();
    process.chdir(project.dir);
    try {
      await start();
    } finally {
      process.chdir(previous);
    }
    const { status, body } = await server().json('GET', '/api/workflows');
    expect(status).toBe(200);
    expect(body.workflows.map((w: { name: string }) => w.name)).toContain('local');
  });

  it('answers 400 invalid_request for a cwd that is relative, missing or not a directory', async () => {
    const project = await setup();
    const file = await project.write('a.yaml', workflowYaml('a'));
    for (const cwd of ['relative/path', join(project.dir, 'missing'), file]) {
      const body = await expectErrorResponse(await server().fetch(withCwd('/api/workflows', cwd)), 400, 'invalid_request');
      expect(body.message).toMatch(/cwd/);
      expect(body.details).toEqual([{ path: 'cwd', message: body.message }]);
    }
  });
});

describe('the parse cache', () => {
  it('parses unchanged files once, and again when their mtime or size changes', async () => {
    const project = await setup();
    const a = await project.write('a.yaml', workflowYaml('a', { description: 'first' }));
    await project.write('b.yaml', workflowYaml('b'));
    const cache = server().ctx.workflows.cache;
    await list(project.dir);
    const afterFirst = cache.parses;
    await list(project.dir);
    await list(project.dir);
    expect(cache.parses).toBe(afterFirst);

    // Size changes.
    await writeFile(a, workflowYaml('a', { description: 'second, longer' }));
    expect((await list(project.dir)).workflows.find((w) => w.name === 'a')!.description).toBe('second, longer');
    expect(cache.parses).toBe(afterFirst + 1);

    // Same size, only the mtime moves on.
    const sameSize = workflowYaml('a', { description: 'third, longer!' });
    expect(sameSize.length).toBe(workflowYaml('a', { description: 'second, longer' }).length);
    const before = await stat(a);
    await writeFile(a, sameSize);
    await utimes(a, before.atime, new Date(before.mtimeMs + 5_000));
    expect((await list(project.dir)).workflows.find((w) => w.name === 'a')!.description).toBe('third, longer!');
    expect(cache.parses).toBe(afterFirst + 2);
  });

  it('forgets deleted and renamed files', async () => {
    const project = await setup();
    const a = await project.write('a.yaml', workflowYaml('a'));
    const b = await project.write('b.yaml', workflowYaml('b'));
    await list(project.dir);
    await unlink(a);
    await rename(b, join(project.workflowsDir, 'c.yaml'));
    const body = await list(project.dir);
    expect(body.workflows.map((w) => w.name)).not.toContain('a');
    expect(body.errors).toEqual([expect.objectContaining({ filename: join(project.workflowsDir, 'c.yaml') })]);
    expect(await readFile(join(project.workflowsDir, 'c.yaml'), 'utf8')).toContain('name: b');
  });
});
