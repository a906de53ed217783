// `svc workflow list` and `svc commands` on a terminal (issue 3): the command modules driven
// in-process with a TTY-like IO against a real server — a table with a header, no file column.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runSvc } from '../../src/cli/main.js';
import type { IO } from '../../src/cli/io.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeProject, webhookTriggers, workflowYaml, type Project } from '../helpers/workflow-project.js';

let server: TestServer | undefined;
let project: Project | undefined;
afterEach(async () => {
  await server?.stop();
  await project?.remove();
  server = undefined;
  project = undefined;
});

function terminal(env: NodeJS.ProcessEnv): IO & { stdoutText(): string; stderrText(): string } {
  let out = '';
  let err = '';
  return {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    isStdoutTTY: true,
    isStderrTTY: true,
    isStdinTTY: false,
    color: false,
    canPrompt: false,
    canSpin: false,
    env,
    out: (text) => void (out += text),
    err: (text) => void (err += text),
    stdoutText: () => out,
    stderrText: () => err,
  };
}

describe('on a terminal', () => {
  it('svc workflow list prints a table with a header; errors still go to stderr', async () => {
    server = await startTestServer({ socket: true });
    project = await makeProject();
    await project.write('deploy.yaml', workflowYaml('deploy', { extra: webhookTriggers('on-push') }));
    const broken = await project.write('broken.yaml', 'name: [');
    const io = terminal({ SVC_HOME: server.home, SVC_URL: server.url });
    expect(await runSvc(['workflow', 'list', '--cwd', project.dir], io)).toBe(0);
    const lines = io
      .stdoutText()
      .trimEnd()
      .split('\n')
      .map((line) => line.trim().split(/\s{2,}/));
    expect(lines[0]).toEqual(['NAME', 'WORKSPACE', 'SOURCE', 'NODES', 'TRIGGERS', 'DESCRIPTION']);
    expect(lines.slice(1).map((l) => l[0])).toEqual(['address-review', 'assist', 'deploy', 'fix-ci', 'fix-issue', 'review', 'rework', 'smoke']);
    // The project is no registered workspace: '-' where the workspace would be named.
    expect(lines[3]).toEqual(['deploy', '-', 'project', '2', 'webhook:on-push', 'the deploy workflow']);
    expect(lines[2]?.[4]).toBe('-');
    expect(io.stdoutText()).not.toContain(project.dir);
    expect(io.stderrText()).toMatch(new RegExp(`^1 workflow file could not be used:\\n${broken}:\\d+:\\d+: invalid YAML`));
  });

  it('svc commands prints a table of name, source and description', async () => {
    server = await startTestServer({ socket: true });
    project = await makeProject();
    const io = terminal({ SVC_HOME: server.home, SVC_URL: server.url });
    expect(await runSvc(['commands', '--cwd', project.dir], io)).toBe(0);
    const lines = io
      .stdoutText()
      .trimEnd()
      .split('\n')
      .map((line) => line.trim().split(/\s{2,}/));
    expect(lines[0]).toEqual(['NAME', 'SOURCE', 'DESCRIPTION']);
    expect(lines[1]).toEqual(['commit-message', 'bundled', 'Draft a commit message for the uncommitted changes']);
  });
});
