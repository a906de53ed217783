// Command and workflow files are read only when they are regular files of at most 1 MiB
// (docs/contract.md, "Workflow files"). A `.svc/commands/x.md` linked to a FIFO held libuv threads
// until some writer came (every file operation of the server then waited behind them); one linked
// to /dev/zero was read until memory ran out. Now each is refused unread and reported, hiding
// nothing else, and a node that names one fails with a clear error.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { startRun, waitForRun, type Json } from '../helpers/runs.js';
import { useServerWithProjects } from '../helpers/project-server.js';
import { withCwd, type Project } from '../helpers/workflow-project.js';

const { setup, server } = useServerWithProjects({ socket: true });

let outside: string;
let fifo: string;
beforeEach(async () => {
  outside = await mkdtemp(join(tmpdir(), 'svc-fifo-'));
  fifo = join(outside, 'fifo');
  execFileSync('mkfifo', [fifo]);
});
afterEach(() => rm(outside, { recursive: true, force: true }));

/** A project whose commands folder links to a FIFO (twice: `plan` shadows the bundled plan) and to /dev/zero, holds one file over 1 MiB and one good command. */
async function hostileProject(): Promise<Project> {
  const project = await setup();
  await project.writeCommand('triage.md', 'Triage $ARGUMENTS\n');
  await symlink(fifo, join(project.commandsDir, 'pipe.md'));
  await symlink(fifo, join(project.commandsDir, 'plan.md'));
  await symlink('/dev/zero', join(project.commandsDir, 'zero.md'));
  await writeFile(join(project.commandsDir, 'big.md'), 'x'.repeat(1024 * 1024 + 1));
  return project;
}

const expectedErrors = (project: Project) => [
  { filename: join(project.commandsDir, 'big.md'), error: `${join(project.commandsDir, 'big.md')}: the file is 1048577 bytes, over the limit of 1048576` },
  { filename: join(project.commandsDir, 'pipe.md'), error: `${join(project.commandsDir, 'pipe.md')}: not a regular file (a FIFO)` },
  { filename: join(project.commandsDir, 'plan.md'), error: `${join(project.commandsDir, 'plan.md')}: not a regular file (a FIFO)` },
  { filename: join(project.commandsDir, 'zero.md'), error: `${join(project.commandsDir, 'zero.md')}: not a regular file (a character device)` },
];

describe('command files that are not regular files, or too large', () => {
  it('GET /api/commands lists the others and says why each was refused; many listings at once leave the server answering', async () => {
    const project = await hostileProject();
    // More listings at once than libuv has threads (4): each blocked FIFO open would hold one.
    const answers = await Promise.all(Array.from({ length: 8 }, () => server().json('GET', withCwd('/api/commands', project.dir))));
    for (const { status, body } of answers) {
      expect(status).toBe(200);
      // The broken `plan.md` still claims its name: the bundled plan is not offered in its place.
      expect(body.commands.map((c: Json) => `${c.name}:${c.source}`)).toEqual(['commit-message:bundled', 'triage:project']);
      expect(body.errors).toEqual(expectedErrors(project));
    }
    expect((await server().json('GET', '/health')).status).toBe(200);
    expect((await server().json('GET', withCwd('/api/workflows', project.dir))).status).toBe(200);
  });

  it('svc commands prints the usable ones and reports the refused files on stderr, exit 0', async () => {
    const project = await hostileProject();
    const result = await runSvcInProcess(['commands', '--cwd', project.dir], { SVC_HOME: server().home, SVC_URL: server().url });
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').map((line) => line.split('\t').slice(0, 2).join(':'))).toEqual(['commit-message:bundled', 'triage:project', '']);
    expect(result.stderr).toBe(
      `4 command files could not be used:\n${expectedErrors(project)
        .map((e) => `${e.error}\n`)
        .join('')}`,
    );
  });

  it('a node naming one fails with command_unreadable, and never runs the bundled command of that name instead', async () => {
    const project = await hostileProject();
    const nodes = ['pipe', 'zero', 'big', 'plan'].map((name) => `  - id: ${name}\n    command: ${name}\n`).join('');
    await project.write('uses.yaml', `name: uses\ndescription: names refused command files\nnodes:\n${nodes}`);
    const run = await waitForRun(server(), await startRun(server(), 'uses', { message: '', cwd: project.dir }));
    expect(run.status).toBe('failed');
    for (const [name, reason] of [
      ['pipe', 'not a regular file (a FIFO)'],
      ['zero', 'not a regular file (a character device)'],
      ['big', 'over the limit of 1048576'],
      ['plan', 'not a regular file (a FIFO)'],
    ] as const) {
      expect(run.nodes[name]).toMatchObject({ status: 'failed', error: expect.stringContaining(reason) });
      expect(run.nodes[name].error).toMatch(new RegExp(`^command '${name}' cannot be read: `));
      expect(run.events.find((e: Json) => e.type === 'node_failed' && e.nodeId === name)).toMatchObject({ code: 'command_unreadable' });
    }
  });

  it('a workflow file linked to a FIFO or /dev/zero is reported in errors the same way, and hides no other workflow', async () => {
    const project = await setup();
    await project.write('good.yaml', 'name: good\ndescription: fine\nnodes:\n  - id: a\n    bash: echo a\n');
    await symlink(fifo, join(project.workflowsDir, 'piped.yaml'));
    await symlink('/dev/zero', join(project.workflowsDir, 'zero.yaml'));
    const { status, body } = await server().json('GET', withCwd('/api/workflows', project.dir));
    expect(status).toBe(200);
    expect(body.workflows.map((w: Json) => w.name)).toContain('good');
    expect(body.errors).toEqual([
      { filename: join(project.workflowsDir, 'piped.yaml'), error: `${join(project.workflowsDir, 'piped.yaml')}: not a regular file (a FIFO)` },
      { filename: join(project.workflowsDir, 'zero.yaml'), error: `${join(project.workflowsDir, 'zero.yaml')}: not a regular file (a character device)` },
    ]);
  });
});

describe('a FIFO in the commands folder itself (no link)', () => {
  it('is refused the same way', async () => {
    const project = await setup();
    await mkdir(project.commandsDir, { recursive: true });
    execFileSync('mkfifo', [join(project.commandsDir, 'raw.md')]);
    const { body } = await server().json('GET', withCwd('/api/commands', project.dir));
    expect(body.errors).toEqual([
      { filename: join(project.commandsDir, 'raw.md'), error: `${join(project.commandsDir, 'raw.md')}: not a regular file (a FIFO)` },
    ]);
  });
});
