// GET /api/commands over a real server (issue 3), and the command prompts a node's `command:` runs.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLED_COMMANDS_DIR } from '../../src/catalog/index.js';
import { expectErrorResponse } from '../helpers/error-body.js';
import { useServerWithProjects } from '../helpers/project-server.js';
import { withCwd } from '../helpers/workflow-project.js';

const { setup, server } = useServerWithProjects();

describe('GET /api/commands', () => {
  it('lists the bundled commands', async () => {
    const project = await setup();
    const { status, body } = await server().json('GET', withCwd('/api/commands', project.dir));
    expect(status).toBe(200);
    expect(body.commands).toEqual([
      {
        name: 'commit-message',
        source: 'bundled',
        filename: join(BUNDLED_COMMANDS_DIR, 'commit-message.md'),
        description: 'Draft a commit message for the uncommitted changes',
      },
      { name: 'plan', source: 'bundled', filename: join(BUNDLED_COMMANDS_DIR, 'plan.md'), description: expect.stringMatching(/^Plan a change/) },
    ]);
  });

  it('adds project commands, lets them override bundled ones, and skips what is not a command', async () => {
    const project = await setup();
    const plan = await project.writeCommand('plan.md', '# Our planning prompt\nPlan $ARGUMENTS our way.\n');
    await project.writeCommand('triage.md', '---\ndescription: "Sort incoming issues"\n---\nTriage $ARGUMENTS\n');
    await project.writeCommand('.hidden.md', 'no');
    await project.writeCommand('has space.md', 'no');
    await project.writeCommand('notes.txt', 'no');
    const { body } = await server().json('GET', withCwd('/api/commands', project.dir));
    expect(body.commands.map((c: { name: string; source: string }) => `${c.name}:${c.source}`)).toEqual([
      'commit-message:bundled',
      'plan:project',
      'triage:project',
    ]);
    expect(body.commands[1]).toEqual({ name: 'plan', source: 'project', filename: plan, description: 'Our planning prompt' });
    expect(body.commands[2].description).toBe('Sort incoming issues');
  });

  it('answers 400 for a relative cwd', async () => {
    await setup();
    await expectErrorResponse(await server().fetch(withCwd('/api/commands', 'some/where')), 400, 'invalid_request');
  });
});

describe('command prompts (what `command: <name>` runs)', () => {
  it('reads the project file first, then the bundled one, without its front matter', async () => {
    const project = await setup();
    await project.writeCommand('triage.md', '---\ndescription: Sort\n---\nTriage $ARGUMENTS\n');
    expect(await server().ctx.workflows.readCommand('triage', project.dir)).toMatchObject({ source: 'project', prompt: 'Triage $ARGUMENTS\n' });
    const bundled = await server().ctx.workflows.readCommand('plan', project.dir);
    expect(bundled?.source).toBe('bundled');
    expect(bundled?.prompt.startsWith('Make a plan for the task below')).toBe(true);
    expect(bundled?.prompt).toContain('$ARGUMENTS');
    expect(await server().ctx.workflows.readCommand('missing', project.dir)).toBeUndefined();
    expect(await server().ctx.workflows.readCommand('../workflows/x', project.dir)).toBeUndefined();
  });
});
