// `svc runs merge --queue` and `svc queue <workspace>` against a running server, and what the queue
// refuses: bad input is a clear `{ error, message }` with its status (or a usage error, exit 2), and
// a `.svc/worktree.yaml` that cannot be read puts the entry in needs_rework with the file's position.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupAll, startRun, startServer, waitFor, waitForStatus, type Json } from '../helpers/runs.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import type { TestServer } from '../helpers/server.js';
import { git } from '../helpers/git.js';
import { edit, finishedRun, queueOf, queueRepository } from './fixture.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ socket: true });
});
afterAll(cleanupAll);

const svc = (args: string[]) => runSvcInProcess(['--url', server.url, ...args], { SVC_HOME: server.home });

describe('svc runs merge --queue, svc queue', () => {
  it('queues a run, lists the queue one entry per line in order, and --json', async () => {
    const { dir, workspaceId } = await queueRepository(server, [
      edit('change-a', "sed -i 's/exports.a = () => 1;/exports.a = () => 10;/' math.js"),
      edit('change-a-too', "sed -i 's/exports.a = () => 1;/exports.a = () => 11;/' math.js"),
    ]);
    const first = await finishedRun(server, workspaceId, 'change-a');
    const second = await finishedRun(server, workspaceId, 'change-a-too');
    const queued = await svc(['runs', 'merge', first, '--queue']);
    expect(queued.code, queued.stderr).toBe(0);
    expect(queued.stdout).toMatch(/^Queued for main \(place \d+\); svc queue ws_\S+ shows it\.\n$/);
    const json = await svc(['runs', 'merge', second, '--queue', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ queued: true, entry: { runId: second, state: 'queued', target: 'main', strategy: 'merge' } });

    await waitFor(
      async () => (await queueOf(server, workspaceId)).every((e: Json) => e.state === 'landed' || e.state === 'needs_rework'),
      60_000,
      () => 'both entries settled',
    );
    const listed = await svc(['queue', workspaceId]);
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(`${first} landed main`);
    expect(lines[1]).toMatch(new RegExp(`^${second} needs_rework main — .*conflicts with main.* \\(math\\.js\\)$`));
    const byName = await svc(['queue', dir.split('/').at(-1)!, '--json']);
    expect(byName.code, byName.stderr).toBe(0);
    expect(JSON.parse(byName.stdout)).toMatchObject({
      workspaceId,
      entries: [
        { runId: first, state: 'landed' },
        { runId: second, state: 'needs_rework' },
      ],
    });
  });

  it('refuses what it cannot queue: usage errors exit 2, a running run or an unknown one is a clear refusal', async () => {
    const { workspaceId } = await queueRepository(server, [
      edit('change-b', "sed -i 's/exports.b = () => 2;/exports.b = () => 20;/' math.js"),
      {
        name: 'gated',
        nodes: [
          { id: 'gate', approval: { message: 'ok?' } },
          { id: 'after', bash: 'true', depends_on: ['gate'] },
        ],
      },
      { name: 'slow', nodes: [{ id: 'sleep', bash: 'sleep 30' }] },
    ]);
    const runId = await finishedRun(server, workspaceId, 'change-b');
    expect((await svc(['runs', 'merge', runId, '--queue', '--ff-only'])).code).toBe(2);
    expect((await svc(['runs', 'merge', runId, '--queue', '-m', 'mine'])).code).toBe(2);

    const fastForward = await api(server, 'POST', `/api/workflows/runs/${runId}/merge`, { queue: true, strategy: 'fast-forward' });
    expect(fastForward.status).toBe(400);
    expect(fastForward.body).toMatchObject({ error: expect.any(String), message: expect.stringContaining('fast-forward') });
    const noBranch = await api(server, 'POST', `/api/workflows/runs/${runId}/merge`, { queue: true, into: 'nowhere' });
    expect(noBranch.status).toBe(404);
    expect(noBranch.body).toMatchObject({ error: 'branch_not_found' });
    const missing = await api(server, 'POST', '/api/workflows/runs/run_doesnotexist/merge', { queue: true });
    expect(missing.status).toBe(404);
    expect((await api(server, 'GET', '/api/workspaces/ws_nosuchworkspace/queue')).status).toBe(404);
    const unknownCli = await svc(['queue', 'no-such-workspace']);
    expect(unknownCli.code).toBe(1);
    expect(unknownCli.stderr).toContain('no-such-workspace');

    const slow = await startRun(server, 'slow', { message: 'slow', workspaceId });
    await waitForStatus(server, slow, 'running');
    const active = await api(server, 'POST', `/api/workflows/runs/${slow}/merge`, { queue: true });
    expect(active.status).toBe(409);
    expect(active.body).toMatchObject({ error: 'run_active' });
    await api(server, 'POST', `/api/workflows/runs/${slow}/cancel`);

    // Entered twice while it waits: refused, the first entry kept.
    const paused = await startRun(server, 'gated', { message: 'gated', workspaceId });
    await waitForStatus(server, paused, 'paused');
    const blocker = join((await api(server, 'GET', `/api/workspaces/${workspaceId}`)).body.path, 'README.md');
    writeFileSync(blocker, 'dirty\n');
    expect((await api(server, 'POST', `/api/workflows/runs/${paused}/merge`, { queue: true })).status).toBe(202);
    const twice = await api(server, 'POST', `/api/workflows/runs/${paused}/merge`, { queue: true });
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({ error: 'already_queued', details: { target: 'main' } });
    git(join(blocker, '..'), 'checkout', '--', 'README.md');
  });

  it("a run cannot choose its own check: the target's verify: runs, not the one the run wrote", async () => {
    // The run breaks b and rewrites verify to pass whatever happens.
    const cheat = "sed -i 's/exports.b = () => 2;/exports.b = \"two\";/' math.js && printf 'verify: exit 0\\n' > .svc/worktree.yaml";
    const { dir, workspaceId } = await queueRepository(server, [edit('cheat', cheat)]);
    const runId = await finishedRun(server, workspaceId, 'cheat');
    const main = git(dir, 'rev-parse', 'main');
    expect((await svc(['runs', 'merge', runId, '--queue'])).code).toBe(0);
    const entry = await waitFor(
      async () => (await queueOf(server, workspaceId)).find((e: Json) => e.state === 'needs_rework' || e.state === 'landed'),
      30_000,
      () => 'the entry settled',
    );
    expect(entry.state).toBe('needs_rework');
    expect(entry.outputTail).toContain('b is a function returning a number');
    expect(git(dir, 'rev-parse', 'main')).toBe(main);
  });

  it('verify_timeout stops a verification that runs too long: the entry needs rework, the target untouched', async () => {
    const { dir, workspaceId } = await queueRepository(server, [edit('slow', "sed -i 's/exports.c = () => 3;/exports.c = () => 30;/' math.js")], {
      verify: 'sleep 30',
      config: 'verify_timeout: 1s\n',
    });
    const runId = await finishedRun(server, workspaceId, 'slow');
    const main = git(dir, 'rev-parse', 'main');
    const started = Date.now();
    expect((await svc(['runs', 'merge', runId, '--queue'])).code).toBe(0);
    const entry = await waitFor(
      async () => (await queueOf(server, workspaceId)).find((e: Json) => e.state === 'needs_rework' || e.state === 'landed'),
      25_000,
      () => 'the entry settled',
    );
    expect(entry.state).toBe('needs_rework');
    expect(entry.reason).toMatch(/^verify failed on [0-9a-f]{12}: .*timed out/);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(git(dir, 'rev-parse', 'main')).toBe(main);
  });

  it('a .svc/worktree.yaml that cannot be used: the entry needs rework, naming the file, line and column', async () => {
    // The run's own change breaks the file: the commit that would land holds it (checked, though
    // verify itself is the target's).
    const { dir, workspaceId } = await queueRepository(server, [edit('typo', "printf 'verify: node test.js\\nverfy: typo\\n' > .svc/worktree.yaml")]);
    const runId = await finishedRun(server, workspaceId, 'typo');
    const main = git(dir, 'rev-parse', 'main');
    expect((await svc(['runs', 'merge', runId, '--queue'])).code).toBe(0);
    const entry = await waitFor(
      async () => (await queueOf(server, workspaceId)).find((e: Json) => e.state === 'needs_rework'),
      30_000,
      () => 'the entry needs rework',
    );
    expect(entry.reason).toMatch(/\.svc\/worktree\.yaml:2:1/);
    expect(git(dir, 'rev-parse', 'main')).toBe(main);
  });
});
