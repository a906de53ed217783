// Durable waits through the built CLI (docs/decisions.md, "Waits and signals"): `waiting` in
// `svc runs`, `svc runs show` and `svc watch`; `svc signal <run> <event> [--payload file|-]`; and,
// with no server, `svc run` stops at a wait (exit 4) that the next `svc serve` continues.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, SVC_BIN } from '../helpers/cli.js';
import { killAllServes, spawnServe, svcEnv, type ServeProcess } from '../helpers/serve-process.js';
import { waitFor } from '../helpers/runs.js';
import { makeHome } from '../helpers/server.js';
import { makeProject, type Project } from '../helpers/workflow-project.js';

const CI = `name: ci
description: pushes, then waits for its build
nodes:
  - id: push
    bash: echo pushed
  - id: build
    wait: { event: build_finished, timeout: 10m }
    depends_on: [push]
  - id: report
    bash: 'printf "ci said %s\\n" $build.output'
    depends_on: [build]
`;

const NAP = `name: nap
description: naps a second
nodes:
  - id: nap
    wait: { for: 1s }
  - id: after
    bash: echo rested
    depends_on: [nap]
`;

let project: Project;
const json = (text: string) => JSON.parse(text);

beforeAll(async () => {
  project = await makeProject();
  await project.write('ci.yaml', CI);
  await project.write('nap.yaml', NAP);
});

afterAll(async () => {
  await killAllServes();
  await project.remove();
});

describe('with a server', () => {
  let home: string;
  let server: ServeProcess;
  const svc = (args: string[], input?: string) => runCli(args, { env: { SVC_HOME: home, SVC_URL: server.url }, cwd: project.dir, input });

  beforeAll(async () => {
    home = await makeHome();
    server = await spawnServe({ home, cwd: project.dir });
  });

  it('shows a waiting run as such, and svc signal --payload - continues it with stdin as the output; watch follows it to its end', async () => {
    const started = await svc(['run', 'ci', '--detach']);
    expect(started.code).toBe(0);
    const id = started.stdout.trim();
    let shown = '';
    for (let i = 0; i < 100 && !/\bwaiting\b/.test(shown); i++) shown = (await svc(['runs', 'show', id])).stdout;
    expect(shown).toMatch(new RegExp(`^${id}\\s+ci\\s+waiting`));
    expect(shown).toMatch(/waits: +until \S+; for 'build_finished' \(svc signal run_\S+ <event>\)/);
    expect(shown).toMatch(/^build\s+waiting\b.*waits for 'build_finished' until /m);
    const listed = await svc(['runs', '--status', 'waiting']);
    expect(
      listed.stdout
        .split('\n')
        .find((line) => line.startsWith(id))
        ?.split('\t')[2],
    ).toBe('waiting');

    const wrong = await svc(['signal', id, 'deploy_finished']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('No node of run');

    // Watching before the signal: it shows the wait (replayed from the run's history), then follows the run on.
    const watch = spawn(process.execPath, [SVC_BIN, 'watch', id, '--exit-status'], { env: svcEnv({ SVC_HOME: home, SVC_URL: server.url }), cwd: project.dir });
    let watchOut = '';
    watch.stdout.on('data', (chunk: Buffer) => (watchOut += chunk.toString()));
    const watchExit = new Promise<number | null>((resolve) => watch.on('close', resolve));
    await waitFor(() => watchOut.includes('waiting: build'), 10_000).catch(() => undefined);
    expect(watchOut).toContain("waiting: build for 'build_finished' until ");
    const signalled = await svc(['signal', id.slice(0, 14), 'build_finished', '--payload', '-'], 'green build');
    expect(signalled.code).toBe(0);
    expect(signalled.stdout).toContain(`Run ${id} signalled build_finished`);
    expect(await watchExit).toBe(0);
    expect(watchOut).toContain('build signalled build_finished');
    expect(watchOut).toMatch(/^completed ci /m);
    const run = json((await svc(['runs', 'show', id, '--json'])).stdout);
    expect(run.nodes.report.output).toBe('ci said green build');
  });

  it('svc signal --payload <file> sends the file', async () => {
    const id = (await svc(['run', 'ci', '--detach'])).stdout.trim();
    for (let i = 0; i < 100; i++) if (json((await svc(['runs', 'show', id, '--json'])).stdout).status === 'waiting') break;
    const file = join(project.dir, 'payload.txt');
    await writeFile(file, 'from a file');
    expect((await svc(['signal', id, 'build_finished', '--payload', file])).code).toBe(0);
    const done = await svc(['watch', id, '--exit-status', '--json']);
    expect(json(done.stdout).nodes.report.output).toBe('ci said from a file');
  });
});

it('without a server, svc run stops at a wait with exit 4 and says so; the next svc serve continues it', async () => {
  const home = await makeHome();
  const ran = await runCli(['run', 'nap', '--wait', '--json'], { env: { SVC_HOME: home, PORT: '1' }, cwd: project.dir });
  expect(ran.code).toBe(4);
  const run = json(ran.stdout);
  expect(run.status).toBe('waiting');
  expect(ran.stderr).toContain(`run ${run.id} waits until ${run.wakeAt}; no server runs here, and the next \`svc serve\` continues it`);
  const server = await spawnServe({ home, cwd: project.dir });
  const watched = await runCli(['watch', run.id, '--exit-status', '--json'], { env: { SVC_HOME: home, SVC_URL: server.url }, cwd: project.dir });
  expect(watched.code).toBe(0);
  expect(json(watched.stdout).nodes.after.output).toBe('rested');
});
