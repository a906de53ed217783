// One check per shape: a bad `cwd` gets the same answer from every endpoint that takes one, and a
// bad workflow name the same message from the API's `{name}` as from a definition's `name:`.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProjectDirSchema } from '../../src/catalog/index.js';
import { validateWorkflowSource, WorkflowNameSchema } from '../../src/workflows/index.js';
import { expectErrorResponse } from '../helpers/error-body.js';
import { useServerWithProjects } from '../helpers/project-server.js';
import { withCwd, workflowYaml } from '../helpers/workflow-project.js';

const { setup, server } = useServerWithProjects();

describe('cwd', () => {
  it('answers the same 400 from discovery, commands, get, put, delete and run', async () => {
    const project = await setup();
    const file = await project.write('a.yaml', workflowYaml('a'));
    for (const cwd of ['relative/dir', join(project.dir, 'missing'), file]) {
      const expected = ProjectDirSchema.safeParse(cwd).error!.issues[0]!.message;
      expect(expected).toMatch(new RegExp(`^cwd '${cwd}' is not an existing directory`));
      const answers = [
        await server().fetch(withCwd('/api/workflows', cwd)),
        await server().fetch(withCwd('/api/commands', cwd)),
        await server().fetch(withCwd('/api/workflows/a', cwd)),
        await server().fetch(withCwd('/api/workflows/a', cwd), {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ definition: workflowYaml('a') }),
        }),
        await server().fetch(withCwd('/api/workflows/a', cwd), { method: 'DELETE' }),
        await server().fetch('/api/workflows/a/run', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ message: 'x', cwd }),
        }),
      ];
      for (const answer of answers) {
        const body = await expectErrorResponse(answer, 400, 'invalid_request');
        expect(body).toEqual({ error: 'invalid_request', message: expected, details: [{ path: 'cwd', message: expected }] });
      }
    }
  });
});

describe('workflow names', () => {
  it("gives the API's {name} the message a definition's name: gets", async () => {
    await setup();
    const yamlError = validateWorkflowSource({ name: 'Evil', description: 'x', nodes: [{ id: 'a', bash: 'true' }] });
    expect(yamlError.ok).toBe(false);
    const expected = WorkflowNameSchema.safeParse('Evil').error!.issues[0]!.message;
    expect(!yamlError.ok && yamlError.errors).toEqual([`name: ${expected}`]);
    for (const method of ['GET', 'DELETE']) {
      const body = await expectErrorResponse(await server().fetch('/api/workflows/Evil', { method }), 400, 'invalid_request');
      expect(body.details).toEqual([{ path: 'name', message: expected }]);
    }
  });
});
