// GET/PUT/DELETE /api/workflows/{name} over a real server (issue 3): round trips, every refusal,
// and that nothing is ever written outside <cwd>/.svc/workflows/.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BUNDLED_WORKFLOWS_DIR } from '../../src/catalog/index.js';
import { expectErrorResponse } from '../helpers/error-body.js';
import { useServerWithProjects } from '../helpers/project-server.js';
import { withCwd, workflowYaml } from '../helpers/workflow-project.js';

const { setup, start, server } = useServerWithProjects();

const put = (name: string, cwd: string, definition: unknown) => server().json('PUT', withCwd(`/api/workflows/${name}`, cwd), { definition });
const putRaw = (name: string, cwd: string, definition: unknown) =>
  server().fetch(withCwd(`/api/workflows/${name}`, cwd), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ definition }),
  });

describe('GET /api/workflows/{name}', () => {
  it('answers the definition as written (snake_case), its file and source', async () => {
    const project = await setup();
    const file = await project.write('mine.yaml', workflowYaml('mine'));
    const { status, body } = await server().json('GET', withCwd('/api/workflows/mine', project.dir));
    expect(status).toBe(200);
    expect(body).toEqual({
      workflow: {
        name: 'mine',
        description: 'the mine workflow',
        nodes: [
          { id: 'first', bash: 'echo one' },
          { id: 'second', prompt: 'Summarize: $first.output', depends_on: ['first'] },
        ],
      },
      filename: file,
      source: 'project',
      workspaceId: null,
    });
    const bundled = await server().json('GET', withCwd('/api/workflows/fix-issue', project.dir));
    expect(bundled.body).toMatchObject({ source: 'bundled', filename: join(BUNDLED_WORKFLOWS_DIR, 'fix-issue.yaml') });
    expect(bundled.body.workflow.nodes.map((n: { id: string }) => n.id)).toEqual(['plan', 'implement', 'test', 'approve', 'summary']);
  });

  it('answers 404 workflow_not_found, naming a broken file of that name', async () => {
    const project = await setup();
    await expectErrorResponse(await server().fetch(withCwd('/api/workflows/nope', project.dir)), 404, 'workflow_not_found');
    const broken = await project.write('broken.yaml', 'name: broken\n');
    const body = await expectErrorResponse(await server().fetch(withCwd('/api/workflows/broken', project.dir)), 404, 'workflow_not_found');
    expect(body.message).toContain(broken);
  });
});

describe('PUT /api/workflows/{name}', () => {
  it('saves YAML text exactly as sent (201), replaces it (200), and discovery sees it', async () => {
    const project = await setup();
    const text = `# our release checklist\n${workflowYaml('release')}\n# trailing comment\n`;
    const created = await put('release', project.dir, text);
    const file = join(project.workflowsDir, 'release.yaml');
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ workflow: parse(text), filename: file, source: 'project', workspaceId: null });
    expect(await readFile(file, 'utf8')).toBe(text);

    const replaced = await put('release', project.dir, workflowYaml('release', { description: 'v2' }));
    expect(replaced.status).toBe(200);
    expect((await server().json('GET', withCwd('/api/workflows/release', project.dir))).body.workflow.description).toBe('v2');
    expect(await readdir(project.workflowsDir)).toEqual(['release.yaml']);
  });

  it('writes an object definition as YAML, name first, with literal blocks for multi-line text', async () => {
    const project = await setup();
    const definition = {
      nodes: [{ id: 'run', bash: 'echo one\necho two\n' }],
      description: 'from an object',
      name: 'from-object',
    };
    const { status } = await put('from-object', project.dir, definition);
    expect(status).toBe(201);
    const text = await readFile(join(project.workflowsDir, 'from-object.yaml'), 'utf8');
    expect(text.startsWith('name: from-object\ndescription: from an object\n')).toBe(true);
    expect(text).toContain('bash: |\n');
    expect(parse(text)).toEqual({ name: 'from-object', description: 'from an object', nodes: [{ id: 'run', bash: 'echo one\necho two\n' }] });
  });

  it('answers 422 invalid_workflow with every error and writes nothing', async () => {
    const project = await setup();
    const response = await putRaw(
      'bad',
      project.dir,
      'name: bad\ndescription: x\nnodes:\n  - id: a\n    bash: ls\n    timeout: soon\n  - id: a\n    prompt: hi\n',
    );
    const text = await response.text();
    expect(response.status).toBe(422);
    const body = JSON.parse(text);
    expect(body).toEqual({
      error: 'invalid_workflow',
      message: 'The workflow definition has 2 errors; nothing was saved.',
      errors: [
        expect.stringMatching(/^6:14: nodes\[0\]\.timeout: invalid duration 'soon' \(use /),
        "7:9: nodes[1].id: duplicate node id 'a' (first used by nodes[0])",
      ],
    });
    expect(await readdir(project.workflowsDir)).toEqual([]);
  });

  it("answers 400 when the definition's name differs from the path, writing nothing", async () => {
    const project = await setup();
    const body = await expectErrorResponse(await putRaw('one', project.dir, workflowYaml('two')), 400, 'invalid_request');
    expect(body.message).toBe("The definition's name 'two' differs from 'one' in the path; they must be equal.");
    expect(await readdir(project.workflowsDir)).toEqual([]);
  });

  it('answers 400 when cwd has no .svc/workflows/ folder, and creates none', async () => {
    const project = await setup({ bare: true });
    const body = await expectErrorResponse(await putRaw('x', project.dir, workflowYaml('x')), 400, 'invalid_request');
    expect(body.message).toContain(`has no ${join('.svc', 'workflows')}/ folder`);
    expect(existsSync(join(project.dir, '.svc'))).toBe(false);
    await expectErrorResponse(await putRaw('x', 'relative/dir', workflowYaml('x')), 400, 'invalid_request');
  });

  it('refuses names that could leave the folder: .., slashes, absolute paths', async () => {
    const project = await setup();
    const attempts = ['..%2Fevil', '%2E%2E%2Fevil', '%2Ftmp%2Fevil', 'a%2Fb', '.hidden', 'Evil', '..%5Cevil'];
    for (const name of attempts) {
      const body = await expectErrorResponse(await putRaw(name, project.dir, workflowYaml('evil')), 400, 'invalid_request');
      expect(body.details).toEqual([{ path: 'name', message: expect.stringMatching(/workflow name/) }]);
    }
    // A real slash is another path altogether: no route.
    await expectErrorResponse(await putRaw('a/b', project.dir, workflowYaml('b')), 404, 'route_not_found');
    expect(await readdir(project.workflowsDir)).toEqual([]);
    expect((await readdir(join(project.dir, '.svc'))).sort()).toEqual(['workflows']);
    expect(existsSync(join(project.dir, 'evil.yaml'))).toBe(false);
  });

  it('saving a bundled name creates a project override', async () => {
    const project = await setup();
    const { status, body } = await put('smoke', project.dir, workflowYaml('smoke', { description: 'our smoke' }));
    expect(status).toBe(201);
    expect(body.source).toBe('project');
    const got = await server().json('GET', withCwd('/api/workflows/smoke', project.dir));
    expect(got.body).toMatchObject({ source: 'project', workflow: { description: 'our smoke' } });
  });

  it('updates an existing <name>.yml in place rather than creating a duplicate .yaml', async () => {
    const project = await setup();
    await project.write('legacy.yml', workflowYaml('legacy'));
    const { status, body } = await put('legacy', project.dir, workflowYaml('legacy', { description: 'updated' }));
    expect(status).toBe(200);
    expect(body.filename).toBe(join(project.workflowsDir, 'legacy.yml'));
    expect(await readdir(project.workflowsDir)).toEqual(['legacy.yml']);
  });
});

describe('DELETE /api/workflows/{name}', () => {
  it('deletes a project workflow file; it is then gone', async () => {
    const project = await setup();
    const file = await project.write('temp.yaml', workflowYaml('temp'));
    const { status, body } = await server().json('DELETE', withCwd('/api/workflows/temp', project.dir));
    expect(status).toBe(200);
    expect(body).toEqual({ name: 'temp', deleted: [file] });
    expect(existsSync(file)).toBe(false);
    await expectErrorResponse(await server().fetch(withCwd('/api/workflows/temp', project.dir)), 404, 'workflow_not_found');
    await expectErrorResponse(await server().fetch(withCwd('/api/workflows/temp', project.dir), { method: 'DELETE' }), 404, 'workflow_not_found');
  });

  it('refuses a bundled workflow with 403 bundled_workflow_readonly; deleting an override restores it', async () => {
    const project = await setup();
    await expectErrorResponse(await server().fetch(withCwd('/api/workflows/review', project.dir), { method: 'DELETE' }), 403, 'bundled_workflow_readonly');
    expect(existsSync(join(BUNDLED_WORKFLOWS_DIR, 'review.yaml'))).toBe(true);
    await project.write('review.yaml', workflowYaml('review'));
    expect((await server().json('DELETE', withCwd('/api/workflows/review', project.dir))).status).toBe(200);
    expect((await server().json('GET', withCwd('/api/workflows/review', project.dir))).body.source).toBe('bundled');
  });

  it('deletes a broken file by its name, and refuses traversal names', async () => {
    const project = await setup();
    const file = await project.write('broken.yaml', 'name: [');
    expect((await server().json('DELETE', withCwd('/api/workflows/broken', project.dir))).body).toEqual({ name: 'broken', deleted: [file] });
    const outside = await project.write('../victim.yaml', workflowYaml('victim'));
    for (const name of ['..%2Fvictim', '%2E%2E%2Fvictim', `${encodeURIComponent(outside.replace(/\.yaml$/, ''))}`]) {
      await expectErrorResponse(await server().fetch(withCwd(`/api/workflows/${name}`, project.dir), { method: 'DELETE' }), 400, 'invalid_request');
    }
    expect(existsSync(outside)).toBe(true);
  });
});

describe('the OpenAPI document', () => {
  it('describes every workflow and command route', async () => {
    const { body } = await (await start()).json('GET', '/api/openapi.json');
    expect(Object.keys(body.paths['/api/workflows'])).toEqual(['get']);
    expect(Object.keys(body.paths['/api/workflows/{name}']).sort()).toEqual(expect.arrayContaining(['delete', 'get', 'put']));
    expect(Object.keys(body.paths['/api/workflows/validate'])).toEqual(['post']);
    expect(Object.keys(body.paths['/api/commands'])).toEqual(['get']);
    expect(Object.keys(body.paths['/api/workflows/{name}'].put.responses)).toEqual(expect.arrayContaining(['200', '201', '400', '422']));
  });
});
