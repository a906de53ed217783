// POST /api/workflows/validate over a real server (issue 3): an object or YAML text in,
// { valid } out, 200 either way, nothing saved.
import { readdir } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { expectErrorResponse } from '../helpers/error-body.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeProject, workflowYaml } from '../helpers/workflow-project.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const validate = (body: unknown) => server!.json('POST', '/api/workflows/validate', body);

describe('POST /api/workflows/validate', () => {
  it('accepts a valid definition as YAML text and as an object', async () => {
    server = await startTestServer();
    expect(await validate({ definition: workflowYaml('ok') })).toEqual({ status: 200, body: { valid: true } });
    const object = {
      name: 'ok',
      description: 'd',
      nodes: [
        { id: 'a', bash: 'ls' },
        { id: 'b', prompt: 'p $a.output', depends_on: ['a'] },
      ],
    };
    expect(await validate({ definition: object })).toEqual({ status: 200, body: { valid: true } });
  });

  it('lists every error of YAML text with line:col', async () => {
    server = await startTestServer();
    const text = [
      'name: Bad Name',
      'description: x',
      'nodes:',
      '  - id: a',
      '    bash: ls',
      '    depends_on: [b]',
      '  - id: b',
      '    prompt: hi',
      '    depends_on: [a]',
      '    colour: red',
    ].join('\n');
    const { status, body } = await validate({ definition: text });
    expect(status).toBe(200);
    expect(body.valid).toBe(false);
    expect(body.errors).toEqual([
      expect.stringMatching(/^1:7: name: invalid workflow name 'Bad Name'/),
      '6:18: nodes[0].depends_on: cycle: a -> b -> a',
      expect.stringMatching(/^10:5: nodes\[1\]: unknown key 'colour'/),
    ]);
  });

  it('names the place of each error in an object by its path', async () => {
    server = await startTestServer();
    const { status, body } = await validate({ definition: { name: 'x', description: 'd', nodes: [{ id: 'a' }, { id: 'b', bash: 'ls', depends_on: ['zz'] }] } });
    expect(status).toBe(200);
    expect(body).toEqual({
      valid: false,
      errors: ['nodes[0]: a node needs exactly one of prompt, bash, approval, command, wait (found: none)', "nodes[1].depends_on: unknown node 'zz'"],
    });
  });

  it('saves nothing, whatever it is sent', async () => {
    const project = await makeProject();
    const previous = process.cwd();
    process.chdir(project.dir);
    try {
      server = await startTestServer();
      expect((await validate({ definition: workflowYaml('kept-out') })).body).toEqual({ valid: true });
      expect(await readdir(project.workflowsDir)).toEqual([]);
      const listed = await server.json('GET', '/api/workflows');
      expect(listed.body.workflows.map((w: { name: string }) => w.name)).not.toContain('kept-out');
    } finally {
      process.chdir(previous);
      await project.remove();
    }
  });

  it('answers 400 invalid_request for a body without a string or object definition', async () => {
    server = await startTestServer();
    for (const body of [{}, { definition: 42 }, { definition: ['name: x'] }, { definition: null }]) {
      const response = await server.fetch('/api/workflows/validate', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const error = await expectErrorResponse(response, 400, 'invalid_request');
      expect(error.details).toEqual([expect.objectContaining({ path: 'definition' })]);
    }
    await expectErrorResponse(
      await server.fetch('/api/workflows/validate', { method: 'POST', headers: { 'content-type': 'text/yaml' }, body: 'name: x' }),
      415,
      'unsupported_media_type',
    );
  });
});
